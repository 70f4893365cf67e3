import { runPluginCli, type PluginCliOptions } from '@kdp/core';
import { discoverInfiniband } from './discover-infiniband';
import { rdmaConfigSchema } from './rdma-config';
import { serveInfiniband } from './serve-infiniband';

/** The binary's name. */
export const BINARY = 'infiniband-device-plugin';
/** The package version, printed by --version. */
export const VERSION = '0.1.0';

/** What tests may inject instead of the process's streams and signals. */
export type InfinibandCliIo = Pick<
  PluginCliOptions<typeof rdmaConfigSchema>,
  'stdout' | 'stderr' | 'signals' | 'configDebounceMs'
>;

/** Runs `infiniband-device-plugin` with the contract's commands and flags; resolves with the exit code. */
export function runInfinibandCli(argv: readonly string[], io: InfinibandCliIo = {}): Promise<number> {
  return runPluginCli({
    name: 'InfiniBand / RoCE / Omni-Path RDMA device plugin',
    binary: BINARY,
    version: VERSION,
    argv,
    configSchema: rdmaConfigSchema,
    defaults: {},
    // The format is k8s-rdma-shared-dev-plugin's: keys it may grow are reported, not fatal.
    unknownKeys: 'warn',
    discover: discoverInfiniband,
    serve: serveInfiniband,
    ...io,
  });
}
