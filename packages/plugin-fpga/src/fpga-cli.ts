import { runPluginCli, type TextSink } from '@kdp/core';
import { discoverFpgas } from './discover-fpgas';
import { fpgaConfigSchema } from './fpga-config';
import { serveFpgas } from './serve-fpgas';

/** The package version, printed by `--version`. */
export const FPGA_PLUGIN_VERSION = '0.1.0';

/** Options of {@link runFpgaCli}: the argument vector and, for tests, the output sinks. */
export interface FpgaCliOptions {
  readonly argv: readonly string[];
  readonly stdout?: TextSink;
  readonly stderr?: TextSink;
}

/** Runs `fpga-device-plugin serve|discover` with the common flags of the plugin contract; resolves the exit code. */
export function runFpgaCli(options: FpgaCliOptions): Promise<number> {
  return runPluginCli({
    name: 'FPGA device plugin (Intel DFL/OPAE, AMD/Xilinx Alveo)',
    binary: 'fpga-device-plugin',
    version: FPGA_PLUGIN_VERSION,
    argv: options.argv,
    configSchema: fpgaConfigSchema,
    defaults: {},
    ...(options.stdout ? { stdout: options.stdout } : {}),
    ...(options.stderr ? { stderr: options.stderr } : {}),
    discover: (ctx) =>
      discoverFpgas({ sysfsRoot: ctx.flags.sysfsRoot, devRoot: ctx.flags.devRoot, config: ctx.config }),
    serve: serveFpgas,
  });
}
