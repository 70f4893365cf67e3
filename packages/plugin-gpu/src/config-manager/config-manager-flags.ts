import { parseGoBool, parseGoInt, UsageError } from '@kdp/core/plugin';

/** NVIDIA's fallbacks when no label and no default name a configuration (cmd/config-manager). */
export const FALLBACK_STRATEGIES = ['named', 'single', 'empty'] as const;

/** One of {@link FALLBACK_STRATEGIES}. */
export type FallbackStrategy = (typeof FALLBACK_STRATEGIES)[number];

/** NVIDIA's `config-manager` settings, from its flags and their environment variables. */
export interface ConfigManagerFlags {
  /** Select and write once, then exit (init container); else keep watching the label (sidecar). */
  readonly oneshot: boolean;
  readonly nodeName: string;
  readonly nodeLabel: string;
  /** The directory of the available configurations (the chart's ConfigMap volume). */
  readonly srcDir: string;
  /** The file the plugin reads (`CONFIG_FILE` of the plugin container). */
  readonly dst: string;
  /** The configuration used when the label is unset or empty ('' for none). */
  readonly defaultConfig: string;
  readonly fallbackStrategies: readonly FallbackStrategy[];
  readonly sendSignal: boolean;
  readonly signal: number;
  /** The process signalled after a change: the first whose command (argv[0], or the script Node runs) is this. */
  readonly processToSignal: string;
}

interface FlagSpec {
  readonly env: string;
  readonly kind: 'bool' | 'string' | 'int' | 'list';
}

// Flag names and environment variables as NVIDIA's cmd/config-manager/main.go declares them.
const SPECS: Readonly<Record<string, FlagSpec>> = {
  oneshot: { env: 'ONESHOT', kind: 'bool' },
  kubeconfig: { env: 'KUBECONFIG', kind: 'string' },
  'node-name': { env: 'NODE_NAME', kind: 'string' },
  'node-label': { env: 'NODE_LABEL', kind: 'string' },
  'config-file-srcdir': { env: 'CONFIG_FILE_SRCDIR', kind: 'string' },
  'config-file-dst': { env: 'CONFIG_FILE_DST', kind: 'string' },
  'default-config': { env: 'DEFAULT_CONFIG', kind: 'string' },
  'fallback-strategies': { env: 'FALLBACK_STRATEGIES', kind: 'list' },
  'send-signal': { env: 'SEND_SIGNAL', kind: 'bool' },
  signal: { env: 'SIGNAL', kind: 'int' },
  'process-to-signal': { env: 'PROCESS_TO_SIGNAL', kind: 'string' },
};

/** What the command line asked besides running: `--help` or `--version`. */
export type ConfigManagerCommand =
  { readonly command: 'run'; readonly flags: ConfigManagerFlags } | { readonly command: 'help' | 'version' };

/**
 * Reads NVIDIA config-manager's flags (`--name value`, `--name=value`, one dash or two; a flag wins over its
 * environment variable; an empty variable counts as unset, as urfave/cli reads it). Throws a {@link UsageError}
 * naming what cannot be honoured: an unknown flag or fallback strategy, a bad value, a missing required setting,
 * and `KUBECONFIG` (kdp reaches the API server only through the pod's service account).
 */
export function parseConfigManagerFlags(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ConfigManagerCommand {
  const given = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? '';
    if (['--help', '-help', '-h'].includes(token)) return { command: 'help' };
    if (['--version', '-version', '-v'].includes(token)) return { command: 'version' };
    const match = /^--?([a-z-]+)(?:=(.*))?$/s.exec(token);
    if (match === null) throw new UsageError(`unexpected argument ${JSON.stringify(token)}`);
    const name = match[1] ?? '';
    const spec = SPECS[name];
    if (spec === undefined) throw new UsageError(`unknown flag --${name}`);
    let value = match[2];
    if (value === undefined) {
      if (spec.kind === 'bool') value = 'true';
      else if (i + 1 < argv.length) value = argv[++i] ?? '';
      else throw new UsageError(`flag --${name} needs a value`);
    }
    given.set(name, value);
  }
  const read = (name: string): string | undefined => {
    const spec = SPECS[name] as FlagSpec;
    const value = given.get(name) ?? env[spec.env];
    return value === undefined || (value === '' && !given.has(name)) ? undefined : value;
  };
  const parse = <T>(name: string, parser: (text: string) => T, fallback: T): T => {
    const text = read(name);
    if (text === undefined) return fallback;
    try {
      return parser(text);
    } catch (error) {
      throw new UsageError(`--${name} (${(SPECS[name] as FlagSpec).env}): ${(error as Error).message}`);
    }
  };
  if (read('kubeconfig') !== undefined)
    throw new UsageError(
      '--kubeconfig (KUBECONFIG) is not supported: kdp reads the node through the pod service account (in-cluster access)',
    );
  const required = (name: string, fallback = ''): string => {
    const value = read(name) ?? fallback;
    if (value === '') throw new UsageError(`--${name} (${(SPECS[name] as FlagSpec).env}) must not be empty`);
    return value;
  };
  const fallbackStrategies = parse(
    'fallback-strategies',
    (text) =>
      text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
        .map((item) => {
          if (!(FALLBACK_STRATEGIES as readonly string[]).includes(item))
            throw new Error(`unknown fallback strategy ${item} (${FALLBACK_STRATEGIES.join(', ')})`);
          return item as FallbackStrategy;
        }),
    [] as FallbackStrategy[],
  );
  const signal = parse('signal', parseGoInt, 1);
  if (signal < 1 || signal > 64) throw new UsageError(`--signal ${signal} is not a signal number`);
  return {
    command: 'run',
    flags: {
      oneshot: parse('oneshot', parseGoBool, false),
      nodeName: required('node-name'),
      nodeLabel: required('node-label', 'nvidia.com/device-plugin.config'),
      srcDir: required('config-file-srcdir'),
      dst: required('config-file-dst'),
      defaultConfig: read('default-config') ?? '',
      fallbackStrategies,
      sendSignal: parse('send-signal', parseGoBool, true),
      signal,
      processToSignal: read('process-to-signal') ?? 'nvidia-device-plugin',
    },
  };
}
