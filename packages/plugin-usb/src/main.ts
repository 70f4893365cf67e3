import { runUsbPluginCli } from './usb-plugin-cli';

void runUsbPluginCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
