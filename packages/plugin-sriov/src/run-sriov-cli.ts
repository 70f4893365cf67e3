import { runPluginCli, UsageError, type PluginCliOptions } from '@kdp/core';
import { DEFAULT_DEVINFO_DIR } from './device-info';
import { discoverSriov } from './discover-sriov';
import { serveSriov, type ServeSriovOptions } from './serve-sriov';
import { DEFAULT_RESOURCE_PREFIX, sriovConfigSchema } from './sriov-config';

/** The version printed by --version. */
export const SRIOV_PLUGIN_VERSION = '0.1.0';

/** I/O hooks for tests (everything else comes from the command line). */
export type SriovCliOverrides = Partial<
  Pick<PluginCliOptions<typeof sriovConfigSchema>, 'stdout' | 'stderr' | 'signals' | 'configDebounceMs'>
> & { readonly onPlugin?: ServeSriovOptions['onPlugin'] };

const extraFlags = {
  'resource-prefix': {
    type: 'string',
    valueName: 'PREFIX',
    description: `resource prefix of pools without resourcePrefix`,
    default: DEFAULT_RESOURCE_PREFIX,
  },
  'devinfo-dir': {
    type: 'string',
    valueName: 'DIR',
    description: `where Multus device-info files are written`,
    default: DEFAULT_DEVINFO_DIR,
  },
  'poll-interval': {
    type: 'string',
    valueName: 'MS',
    description: 'rescan period in milliseconds; sysfs changes seen by fs.watch rescan at once',
    default: '1000',
  },
  'vanished-grace': {
    type: 'string',
    valueName: 'MS',
    description: 'how long a vanished VF stays advertised as Unhealthy, in milliseconds',
    default: '30000',
  },
} as const;

function milliseconds(flag: string, value: string | boolean | undefined, min: number): number {
  const text = String(value);
  if (!/^\d{1,9}$/.test(text) || Number(text) < min) {
    throw new UsageError(`--${flag} must be a whole number of milliseconds, at least ${min} (got ${text})`);
  }
  return Number(text);
}

/** `sriov-device-plugin serve|discover …`: resolves with the exit code. */
export function runSriovCli(argv: readonly string[], overrides: SriovCliOverrides = {}): Promise<number> {
  const { onPlugin, ...io } = overrides;
  return runPluginCli({
    name: 'SR-IOV network device plugin (drop-in for sriov-network-device-plugin)',
    binary: 'sriov-device-plugin',
    version: SRIOV_PLUGIN_VERSION,
    argv,
    configSchema: sriovConfigSchema,
    defaults: {},
    unknownKeys: 'warn',
    extraFlags,
    ...io,
    discover: (ctx) =>
      discoverSriov({
        sysfsRoot: ctx.flags.sysfsRoot,
        procRoot: ctx.flags.procRoot,
        devRoot: ctx.flags.devRoot,
        defaultPrefix: String(ctx.extra['resource-prefix']),
        config: ctx.config,
      }),
    serve: (ctx) =>
      serveSriov({
        sysfsRoot: ctx.flags.sysfsRoot,
        procRoot: ctx.flags.procRoot,
        devRoot: ctx.flags.devRoot,
        devicePluginDir: ctx.flags.devicePluginDir,
        devinfoDir: String(ctx.extra['devinfo-dir']),
        defaultPrefix: String(ctx.extra['resource-prefix']),
        pollIntervalMs: milliseconds('poll-interval', ctx.extra['poll-interval'], 50),
        vanishedGraceMs: milliseconds('vanished-grace', ctx.extra['vanished-grace'], 0),
        logger: ctx.logger,
        signal: ctx.signal,
        metrics: ctx.metrics,
        config: () => ctx.config,
        onConfigChange: (listener) => ctx.onConfigChange(() => listener()),
        ...(onPlugin !== undefined ? { onPlugin } : {}),
      }),
  });
}
