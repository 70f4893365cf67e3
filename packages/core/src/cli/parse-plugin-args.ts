import { stat } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../log/create-logger';
import { parseHostPort } from '../metrics/parse-host-port';
import { UsageError } from './exit-code';

/** The flags every kdp plugin takes (see the plugin contract), parsed and checked. */
export interface CommonFlags {
  /** `--sysfs-root DIR` (default `/sys`): where sysfs is read. */
  readonly sysfsRoot: string;
  /** `--dev-root DIR` (default `/dev`): where device nodes are looked up. */
  readonly devRoot: string;
  /** `--proc-root DIR` (default `/proc`): where procfs is read. */
  readonly procRoot: string;
  /** `--device-plugin-dir DIR` (default `/var/lib/kubelet/device-plugins`): the kubelet's socket directory. */
  readonly devicePluginDir: string;
  /** `--config FILE`: YAML or JSON configuration; undefined = the documented defaults. */
  readonly config: string | undefined;
  /** `--cdi-dir DIR` (default `/var/run/cdi`): where CDI specs are written when CDI is enabled. */
  readonly cdiDir: string;
  /** `--metrics-address HOST:PORT`: /metrics, /healthz, /readyz; undefined = off. */
  readonly metricsAddress: string | undefined;
  /** `--log-level LEVEL` (default `info`). */
  readonly logLevel: LogLevel;
}

/** The defaults of {@link CommonFlags}. */
export const COMMON_FLAG_DEFAULTS = {
  sysfsRoot: '/sys',
  devRoot: '/dev',
  procRoot: '/proc',
  devicePluginDir: '/var/lib/kubelet/device-plugins',
  config: undefined,
  cdiDir: '/var/run/cdi',
  metricsAddress: undefined,
  logLevel: 'info',
} as const satisfies CommonFlags;

/** A plugin-specific flag, added to the common ones. */
export interface ExtraFlag {
  readonly type: 'string' | 'boolean';
  /** Shown in --help. */
  readonly description: string;
  /** Placeholder for the value in --help (e.g. `STRATEGY`). */
  readonly valueName?: string;
  readonly default?: string | boolean;
}

/** Values of the plugin's extra flags, by flag name (undefined when absent and without default). */
export type ExtraFlagValues = Readonly<Record<string, string | boolean | undefined>>;

/** What the command line asks for. */
export type PluginCommand =
  | { readonly command: 'help' }
  | { readonly command: 'version' }
  | { readonly command: 'serve'; readonly flags: CommonFlags; readonly extra: ExtraFlagValues }
  | {
      readonly command: 'discover';
      readonly flags: CommonFlags;
      readonly extra: ExtraFlagValues;
      readonly output: 'json' | 'table';
    };

interface FlagDoc {
  readonly name: string;
  readonly valueName?: string;
  readonly description: string;
}

const COMMON_FLAG_DOCS: readonly FlagDoc[] = [
  { name: 'sysfs-root', valueName: 'DIR', description: 'where sysfs is read [/sys]' },
  { name: 'dev-root', valueName: 'DIR', description: 'where device nodes are looked up [/dev]' },
  { name: 'proc-root', valueName: 'DIR', description: 'where procfs is read [/proc]' },
  {
    name: 'device-plugin-dir',
    valueName: 'DIR',
    description: "the kubelet's socket directory [/var/lib/kubelet/device-plugins]",
  },
  {
    name: 'config',
    valueName: 'FILE',
    description: 'YAML or JSON configuration; absent = documented defaults',
  },
  {
    name: 'cdi-dir',
    valueName: 'DIR',
    description: 'where CDI specs are written when CDI is enabled [/var/run/cdi]',
  },
  {
    name: 'metrics-address',
    valueName: 'HOST:PORT',
    description: 'serve /metrics, /healthz, /readyz; off when absent',
  },
  {
    name: 'log-level',
    valueName: 'LEVEL',
    description: `${LOG_LEVELS.join('|')}; JSON logs on stderr [info]`,
  },
];

/**
 * Parses a plugin command line (arguments after the program name) with node:util parseArgs. Throws
 * {@link UsageError} for an unknown or missing command, an unknown flag, a missing or malformed value,
 * a log level or address that is not valid, or `--output` anywhere but `discover`. Directories are
 * checked separately by {@link checkFlagDirectories}.
 */
export function parsePluginArgs(
  argv: readonly string[],
  extraFlags: Readonly<Record<string, ExtraFlag>> = {},
): PluginCommand {
  const options = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
    output: { type: 'string' },
    ...Object.fromEntries(COMMON_FLAG_DOCS.map((f) => [f.name, { type: 'string' }])),
    ...Object.fromEntries(Object.entries(extraFlags).map(([name, f]) => [name, { type: f.type }])),
  } satisfies ParseArgsConfig['options'];
  for (const name of Object.keys(extraFlags)) {
    if (name in { help: 1, version: 1, output: 1 } || COMMON_FLAG_DOCS.some((f) => f.name === name)) {
      throw new Error(`extra flag --${name} clashes with a common flag`);
    }
  }
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true }) as typeof parsed;
  } catch (error) {
    throw new UsageError(cleanParseArgsMessage(error instanceof Error ? error.message : String(error)));
  }
  const { values, positionals } = parsed;
  if (values['help']) return { command: 'help' };
  if (values['version']) return { command: 'version' };
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError('missing command: serve or discover');
  if (command !== 'serve' && command !== 'discover')
    throw new UsageError(`unknown command ${JSON.stringify(command)}: expected serve or discover`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);

  const str = (name: string): string | undefined => {
    const v = values[name];
    if (typeof v !== 'string') return undefined;
    if (v.trim() === '') throw new UsageError(`--${name} must not be empty`);
    return v;
  };
  const logLevel = str('log-level') ?? COMMON_FLAG_DEFAULTS.logLevel;
  if (!isLogLevel(logLevel))
    throw new UsageError(`--log-level ${JSON.stringify(logLevel)} is not one of ${LOG_LEVELS.join(', ')}`);
  const metricsAddress = str('metrics-address');
  if (metricsAddress !== undefined) {
    try {
      parseHostPort(metricsAddress);
    } catch (error) {
      throw new UsageError(`--metrics-address ${(error as Error).message}`);
    }
  }
  const flags: CommonFlags = {
    sysfsRoot: str('sysfs-root') ?? COMMON_FLAG_DEFAULTS.sysfsRoot,
    devRoot: str('dev-root') ?? COMMON_FLAG_DEFAULTS.devRoot,
    procRoot: str('proc-root') ?? COMMON_FLAG_DEFAULTS.procRoot,
    devicePluginDir: str('device-plugin-dir') ?? COMMON_FLAG_DEFAULTS.devicePluginDir,
    config: str('config'),
    cdiDir: str('cdi-dir') ?? COMMON_FLAG_DEFAULTS.cdiDir,
    metricsAddress,
    logLevel,
  };
  const extra = Object.fromEntries(
    Object.entries(extraFlags).map(([name, f]) => [name, values[name] ?? f.default]),
  );
  const output = str('output');
  if (command === 'serve') {
    if (output !== undefined) throw new UsageError('--output applies to discover only');
    return { command, flags, extra };
  }
  if (output !== undefined && output !== 'json' && output !== 'table') {
    throw new UsageError(`--output ${JSON.stringify(output)} is not json or table`);
  }
  return { command, flags, extra, output: output ?? 'table' };
}

/**
 * Checks that the roots exist and are directories (and, for `serve`, the kubelet's socket directory);
 * throws {@link UsageError} naming the flag and the path.
 */
export async function checkFlagDirectories(flags: CommonFlags, command: 'serve' | 'discover'): Promise<void> {
  const dirs: Array<[string, string]> = [
    ['--sysfs-root', flags.sysfsRoot],
    ['--dev-root', flags.devRoot],
    ['--proc-root', flags.procRoot],
  ];
  if (command === 'serve') dirs.push(['--device-plugin-dir', flags.devicePluginDir]);
  for (const [flag, dir] of dirs) {
    const info = await stat(dir).catch(() => undefined);
    if (!info) throw new UsageError(`${flag} ${dir}: no such directory`);
    if (!info.isDirectory()) throw new UsageError(`${flag} ${dir}: not a directory`);
  }
}

/** The --help text: commands, common flags with their defaults, the plugin's extra flags, exit codes. */
export function formatUsage(
  binary: string,
  description: string | undefined,
  extraFlags: Readonly<Record<string, ExtraFlag>> = {},
): string {
  const docs: FlagDoc[] = [
    ...COMMON_FLAG_DOCS,
    ...Object.entries(extraFlags).map(([name, f]) => ({
      name,
      ...(f.type === 'string' ? { valueName: f.valueName ?? 'VALUE' } : {}),
      description: f.default === undefined ? f.description : `${f.description} [${String(f.default)}]`,
    })),
  ];
  const left = docs.map((d) => `--${d.name}${d.valueName ? ` ${d.valueName}` : ''}`);
  const width = Math.max(...left.map((l) => l.length));
  return [
    ...(description ? [description, ''] : []),
    'Usage:',
    `  ${binary} serve    [flags]                          run the device plugin: discover, serve, register, watch`,
    `  ${binary} discover [flags] [--output json|table]    scan once, print the result, exit (no kubelet needed)`,
    `  ${binary} --version | --help`,
    '',
    'Flags:',
    ...docs.map((d, i) => `  ${(left[i] ?? '').padEnd(width)}  ${d.description}`),
    `  ${'--output json|table'.padEnd(width)}  discover only: output format [table]`,
    '',
    'Exit codes: 0 done (discover: the scan ran), 1 failure, 2 usage or configuration error.',
    '',
  ].join('\n');
}

function cleanParseArgsMessage(message: string): string {
  // parseArgs suggests "--" for positionals starting with "-" and mentions its own API; keep the first sentence.
  // Under some hosts (jest's vm) the message arrives prefixed with `TypeError [ERR_PARSE_ARGS_…]: `.
  const bare = message.replace(/^\w*Error \[ERR_[A-Z_]+\]: /, '');
  return (bare.split(/\.\s/)[0] ?? bare).replace(/\.$/, '');
}
