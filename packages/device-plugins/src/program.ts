import type { MultiPluginProgram } from '@kdp/core/plugin';
import { fpgaPlugin } from '@kdp/plugin-fpga';
import { gpuPlugin } from '@kdp/plugin-gpu';
import { infinibandPlugin } from '@kdp/plugin-infiniband';
import { sriovPlugin } from '@kdp/plugin-sriov';
import { usbPlugin } from '@kdp/plugin-usb';
import packageJson from '../package.json';

/** `kdp-device-plugins`: the five plugins in one process, sharing one runtime, metrics port and set of roots. */
export const devicePlugins: MultiPluginProgram = {
  binary: 'kdp-device-plugins',
  title: 'kdp device plugins (GPU, SR-IOV, InfiniBand, USB, FPGA) in one process',
  version: packageJson.version,
  plugins: [gpuPlugin, sriovPlugin, infinibandPlugin, usbPlugin, fpgaPlugin],
};
