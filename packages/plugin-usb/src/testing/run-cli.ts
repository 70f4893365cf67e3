import { runUsbPluginCli, type UsbPluginCliOptions } from '../usb-plugin-cli';

/** The outcome of one in-process CLI run. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in-process with captured output (the usb package is never loaded unless a loader is given). */
export async function runCli(argv: readonly string[], options: UsbPluginCliOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runUsbPluginCli(argv, {
    stdout: { write: (text) => (stdout += text) },
    stderr: { write: (text) => (stderr += text) },
    loadLibrary: () => ({ ok: false, reason: 'not loaded in tests' }),
    ...options,
  });
  return { code, stdout, stderr };
}

/** `serve` on a fixture: its sysfs and dev roots, a device-plugin dir, and `usb.yaml` in the fixture's base dir. */
export function serveArgs(
  sys: { readonly root: string; readonly devRoot: string; readonly base: string },
  devicePluginDir: string,
  logLevel: string,
): string[] {
  return [
    'serve',
    '--sysfs-root',
    sys.root,
    '--dev-root',
    sys.devRoot,
    '--device-plugin-dir',
    devicePluginDir,
    '--config',
    `${sys.base}/usb.yaml`,
    '--log-level',
    logLevel,
  ];
}
