import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isLogLevel, LOG_LEVELS, parseHostPort } from '@kdp/base';
import type { CommonFlags } from './common-flags';
import { formatCompatHelp } from './compat/format-compat-help';
import { DEVICE_LIST_STRATEGIES, type AnyPluginDefinition, type DeviceListStrategy } from './define-plugin';
import { UsageError } from './exit-code';
import { flag, type Flag, type FlagSpecs } from './flags';
import { requireDirectories } from './require-directories';
import { DEVICE_PLUGIN_MODE, type ServeMode } from './serve-mode';

/** One plugin as the command line configures it. */
export interface PluginInvocation {
  readonly definition: AnyPluginDefinition;
  /** Its `--config` (`--<name>-config` in a multi-plugin binary); undefined: the built-in defaults. */
  readonly configFile: string | undefined;
  /** Its own flags, parsed. */
  readonly flags: Readonly<Record<string, unknown>>;
}

/** What a command line asks for. */
export type Command =
  | { readonly command: 'help' }
  | { readonly command: 'version' }
  | {
      readonly command: 'serve' | 'discover';
      readonly common: CommonFlags;
      readonly plugins: readonly PluginInvocation[];
      /** `discover --output` (default `table`). */
      readonly output: 'json' | 'table';
      /** The serve mode (`--mode`, default `device-plugin`) and its own flags. */
      readonly mode: ChosenMode;
    };

/** The serve mode a command line chose, with its own flags parsed. */
export interface ChosenMode {
  /** Its name (`device-plugin`, `dra`). */
  readonly name: string;
  /** The mode itself. */
  readonly serveMode: ServeMode;
  /** Its own flags, by name, each its default when absent. */
  readonly flags: Readonly<Record<string, unknown>>;
}

/** A binary: one plugin (`gpu-device-plugin`) or several in one process (`kdp-device-plugins`). */
export interface Program {
  readonly binary: string;
  readonly title: string;
  readonly version: string;
  readonly plugins: readonly AnyPluginDefinition[];
  /** Several plugins: `--plugins`, and `--<name>-config` / `--<name>-<flag>` for each plugin. */
  readonly multi: boolean;
  /** Serve modes by name, `device-plugin` among them: `--mode` is offered when there is more than one. */
  readonly modes: Readonly<Record<string, ServeMode>>;
}

/** A common flag and the commands it acts in (`discover` takes only what discovery uses). */
interface CommonFlag {
  readonly flag: Flag<unknown>;
  readonly serveOnly?: boolean;
  /** Offered only when a plugin of the program reads procfs. */
  readonly procfs?: boolean;
}

/** A path flag that takes only absolute paths (a relative one is then free for an anchor's flag of the name). */
const absolutePath = (f: Flag<string | undefined>): Flag<string | undefined> => ({
  ...f,
  parse: (texts) => {
    const value = f.parse(texts);
    if (value !== undefined && !value.startsWith('/'))
      throw new Error(`${JSON.stringify(value)} is not an absolute path`);
    return value;
  },
});

const COMMON: Readonly<Record<string, CommonFlag>> = {
  'sysfs-root': {
    flag: flag.path({ description: 'where sysfs is read', valueName: 'DIR', default: '/sys' }),
  },
  'dev-root': {
    flag: flag.path({ description: 'where device nodes are looked up', valueName: 'DIR', default: '/dev' }),
  },
  'proc-root': {
    flag: flag.path({ description: 'where procfs is read', valueName: 'DIR', default: '/proc' }),
    procfs: true,
  },
  'device-plugin-dir': {
    flag: flag.path({
      description: "the kubelet's socket directory",
      valueName: 'DIR',
      default: '/var/lib/kubelet/device-plugins',
    }),
    serveOnly: true,
  },
  'device-list-strategy': {
    flag: flag.list({
      description: 'how Allocate hands devices over (default: each resource its own)',
      values: DEVICE_LIST_STRATEGIES,
      valueName: 'LIST',
    }),
    serveOnly: true,
  },
  'cdi-dir': {
    flag: flag.path({
      description: 'where CDI specs are written for the cdi strategy',
      valueName: 'DIR',
      default: '/var/run/cdi',
    }),
    serveOnly: true,
  },
  registration: {
    flag: flag.enum({
      description: 'kubelet (Register on kubelet.sock) or plugin-watcher',
      values: ['kubelet', 'plugin-watcher'] as const,
      valueName: 'MODE',
      default: 'kubelet',
    }),
    serveOnly: true,
  },
  'plugins-registry-dir': {
    flag: flag.path({
      description: "the kubelet's plugin-watcher directory",
      valueName: 'DIR',
      default: '/var/lib/kubelet/plugins_registry',
    }),
    serveOnly: true,
  },
  'metrics-address': {
    flag: flag.string({
      description: 'serve /metrics, /healthz, /readyz; off when absent',
      valueName: 'HOST:PORT',
    }),
    serveOnly: true,
  },
  'log-level': {
    flag: flag.enum({
      description: 'JSON logs on stderr',
      values: LOG_LEVELS,
      valueName: 'LEVEL',
      default: 'info',
    }),
  },
  'log-dir': {
    flag: absolutePath(
      flag.path({
        description: 'also append the JSON logs to DIR/<binary>.log (absolute; created if missing)',
        valueName: 'DIR',
      }),
    ),
  },
  'node-name': {
    flag: flag.string({
      description: "this node's name, which selects its key of a --config directory [$NODE_NAME]",
      valueName: 'NAME',
    }),
  },
  'node-config-label': {
    flag: flag.string({
      description: 'node label naming the key of a --config directory (needs get nodes)',
      valueName: 'LABEL',
    }),
  },
  'default-config': {
    flag: flag.string({
      description: 'key of a --config directory used when neither the label nor the node name names one',
      valueName: 'KEY',
    }),
  },
  'nfd-features-dir': {
    flag: flag.path({
      description: "write node feature labels to DIR/kdp-<plugin> (NFD's features.d); off when absent",
      valueName: 'DIR',
    }),
    serveOnly: true,
  },
  'poll-interval': {
    flag: flag.duration({
      description: 'how often the change probe (without one: a full scan) runs',
      min: '50ms',
      max: '1h',
    }),
    serveOnly: true,
  },
};

const RESERVED = new Set(['help', 'version', 'output', 'config', 'plugins', ...Object.keys(COMMON)]);

/** Every flag of a program with where its value goes. */
interface FlagSlot {
  readonly name: string;
  readonly flag: Flag<unknown>;
  /** Plugin flags: the plugin's index and the flag's own name. */
  readonly plugin?: { readonly index: number; readonly key: string };
  /** `--config` / `--<name>-config`: the plugin's index. */
  readonly configOf?: number;
  /** Refused by `discover`. */
  readonly serveOnly?: boolean;
  /** A serve mode's flag: the mode's name (refused in any other mode). */
  readonly modeOf?: string;
}

/** The names of a program's serve modes. */
const modeNames = (program: Program): string[] => Object.keys(program.modes);

/** Whether a program offers `--mode` (it has a mode besides the default). */
export const offersModes = (program: Program): boolean => modeNames(program).length > 1;

/** The mode that acts on a common flag only it uses (`device-plugin-dir`: `device-plugin`); undefined: every mode. */
const commonFlagOwner = (program: Program, name: string): string | undefined =>
  modeNames(program).find((mode) => program.modes[mode]?.commonFlags?.includes(name) === true);

/** Whether any plugin of a program reads procfs (and so takes `--proc-root`). */
const readsProcfs = (program: Program): boolean =>
  program.plugins.some((definition) => definition.reads?.procfs === true);

function slotsOf(program: Program): FlagSlot[] {
  const single = program.multi ? undefined : program.plugins[0];
  const slots: FlagSlot[] = Object.entries(COMMON)
    .filter(([, common]) => common.procfs !== true || readsProcfs(program))
    .map(([name, { flag: f, serveOnly }]) => ({
      name,
      // One plugin: --help shows its own poll interval as the default (several: each section says its own).
      flag:
        name === 'poll-interval' && single !== undefined
          ? { ...f, defaultText: single.scan.interval ?? '1s' }
          : f,
      ...(serveOnly === true ? { serveOnly } : {}),
    }));
  if (offersModes(program)) {
    slots.push({
      name: 'mode',
      flag: flag.enum({
        description: 'how the devices are served',
        values: modeNames(program),
        valueName: 'MODE',
        default: DEVICE_PLUGIN_MODE,
      }),
      // discover takes it when a mode can say what it would publish (`discover --mode dra`).
      serveOnly: !Object.values(program.modes).some((mode) => mode.discover !== undefined),
    });
  }
  for (const [mode, spec] of Object.entries(program.modes)) {
    for (const [name, f] of Object.entries(spec.flags ?? {}))
      slots.push({ name, flag: f, serveOnly: true, modeOf: mode });
  }
  if (program.multi) {
    slots.push({
      name: 'plugins',
      flag: flag.list({
        description: 'the plugins to run',
        values: program.plugins.map((p) => p.name),
        default: program.plugins.map((p) => p.name),
      }),
    });
  }
  program.plugins.forEach((definition, index) => {
    const prefix = program.multi ? `${definition.name}-` : '';
    if (definition.config !== undefined)
      slots.push({
        name: `${prefix}config`,
        flag: flag.path({
          description: 'YAML or JSON configuration, or a directory of them (one per node); absent = defaults',
          valueName: 'FILE',
        }),
        configOf: index,
      });
    for (const [key, f] of Object.entries((definition.flags ?? {}) as FlagSpecs)) {
      const name = `${prefix}${key}`;
      if (!program.multi && RESERVED.has(name))
        throw new Error(`${definition.binary}: flag --${name} clashes with a common flag`);
      slots.push({
        name,
        flag: f,
        plugin: { index, key },
        ...(f.serveOnly === true ? { serveOnly: true } : {}),
        ...(f.mode !== undefined ? { modeOf: f.mode } : {}),
      });
    }
  });
  const seen = new Set<string>();
  for (const slot of slots) {
    if (seen.has(slot.name)) throw new Error(`${program.binary}: flag --${slot.name} is declared twice`);
    seen.add(slot.name);
  }
  return slots;
}

/** How a program's own flags read a `--name value` pair: whether `name` is ours, and whether `value` suits it. */
export interface OwnFlagProbe {
  /** undefined: not one of our flags; else whether `value` is valid for it (always true for booleans). */
  accepts(name: string, value: string | undefined): boolean | undefined;
  /** Whether our flag `name` takes a value. */
  takesValue(name: string): boolean;
}

/** The {@link OwnFlagProbe} of a program (compat layers ask it before reading a flag as an anchor's). */
export function ownFlagProbe(program: Program): OwnFlagProbe {
  const slots = new Map(slotsOf(program).map((slot) => [slot.name, slot.flag]));
  for (const name of ['help', 'version']) slots.set(name, flag.boolean({ description: name }));
  slots.set('output', flag.enum({ description: 'output', values: ['json', 'table'] as const }));
  return {
    accepts(name, value) {
      const own = slots.get(name);
      if (own === undefined) return undefined;
      if (own.kind === 'boolean') return true;
      if (value === undefined) return false;
      try {
        own.parse([value]);
        return true;
      } catch {
        return false;
      }
    },
    takesValue: (name) => {
      const own = slots.get(name);
      return own !== undefined && own.kind !== 'boolean';
    },
  };
}

/**
 * Parses a command line (the arguments after the program name) with node:util parseArgs. Throws
 * {@link UsageError} for an unknown or missing command, an unknown flag, a missing or malformed value, or
 * `--output` anywhere but `discover`. Directories are checked separately (`checkRoots`, each mode's `checkDirectories`).
 */
export function parseCommandLine(program: Program, argv: readonly string[]): Command {
  const slots = slotsOf(program);
  const options: ParseArgsConfig['options'] = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
    output: { type: 'string' },
  };
  for (const slot of slots) {
    options[slot.name] =
      slot.flag.kind === 'boolean' ? { type: 'boolean' } : { type: 'string', multiple: true };
  }
  let parsed: { values: Record<string, string[] | boolean | string | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true }) as typeof parsed;
  } catch (error) {
    throw new UsageError(cleanParseArgsMessage(error instanceof Error ? error.message : String(error)));
  }
  const { values, positionals } = parsed;
  if (values['help'] === true) return { command: 'help' };
  if (values['version'] === true) return { command: 'version' };
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError('missing command: serve or discover');
  if (command !== 'serve' && command !== 'discover')
    throw new UsageError(`unknown command ${JSON.stringify(command)}: expected serve or discover`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);

  const value = (slot: FlagSlot): unknown => {
    const raw = values[slot.name];
    if (raw === undefined) return slot.flag.defaultValue;
    if (slot.flag.kind === 'boolean') return true;
    const texts = raw as string[];
    if (!slot.flag.multiple && texts.length > 1)
      throw new UsageError(`--${slot.name} is given ${texts.length} times`);
    try {
      return slot.flag.parse(texts);
    } catch (error) {
      throw new UsageError(`--${slot.name} ${(error as Error).message}`);
    }
  };
  if (command === 'discover') {
    const serveOnly = slots.find((slot) => slot.serveOnly === true && values[slot.name] !== undefined);
    if (serveOnly !== undefined) throw new UsageError(`--${serveOnly.name} applies to serve only`);
  }
  const byName = new Map(slots.map((slot) => [slot.name, slot]));
  const common = (name: string): unknown => {
    const slot = byName.get(name);
    return slot === undefined ? COMMON[name]?.flag.defaultValue : value(slot);
  };
  const metricsAddress = common('metrics-address') as string | undefined;
  if (metricsAddress !== undefined) {
    try {
      parseHostPort(metricsAddress);
    } catch (error) {
      throw new UsageError(`--metrics-address ${(error as Error).message}`);
    }
  }
  const logLevel = common('log-level') as string;
  if (!isLogLevel(logLevel))
    throw new UsageError(`--log-level ${logLevel} is not one of ${LOG_LEVELS.join(', ')}`);
  const flags: CommonFlags = {
    sysfsRoot: common('sysfs-root') as string,
    devRoot: common('dev-root') as string,
    procRoot: common('proc-root') as string,
    devicePluginDir: common('device-plugin-dir') as string,
    cdiDir: common('cdi-dir') as string,
    deviceListStrategy: strategyOf(values['device-list-strategy'], common),
    registration: common('registration') as 'kubelet' | 'plugin-watcher',
    pluginsRegistryDir: common('plugins-registry-dir') as string,
    metricsAddress,
    logLevel,
    logDir: common('log-dir') as string | undefined,
    nodeName: common('node-name') as string | undefined,
    nodeConfigLabel: common('node-config-label') as string | undefined,
    defaultConfig: common('default-config') as string | undefined,
    pollIntervalMs: common('poll-interval') as number | undefined,
    nfdFeaturesDir: common('nfd-features-dir') as string | undefined,
  };
  const chosen = program.multi ? new Set(common('plugins') as string[]) : undefined;
  const plugins: PluginInvocation[] = [];
  program.plugins.forEach((definition, index) => {
    const own = slots.filter((slot) => slot.plugin?.index === index || slot.configOf === index);
    if (chosen !== undefined && !chosen.has(definition.name)) {
      const stray = own.find((slot) => values[slot.name] !== undefined);
      if (stray !== undefined) {
        throw new UsageError(`--${stray.name} is given but ${definition.name} is not among --plugins`);
      }
      return;
    }
    const pluginFlags: Record<string, unknown> = {};
    let configFile: string | undefined;
    for (const slot of own) {
      if (slot.configOf !== undefined) configFile = value(slot) as string | undefined;
      else if (slot.plugin !== undefined) pluginFlags[slot.plugin.key] = value(slot);
    }
    plugins.push({ definition, configFile, flags: pluginFlags });
  });
  if (plugins.length === 0) throw new UsageError('--plugins names no plugin');
  const mode = modeOf(program, slots, values, value);
  if (command === 'discover' && mode.name !== DEVICE_PLUGIN_MODE && mode.serveMode.discover === undefined)
    throw new UsageError(`--mode ${mode.name} applies to serve only`);
  const output = values['output'] as string | undefined;
  if (command === 'serve' && output !== undefined) throw new UsageError('--output applies to discover only');
  if (output !== undefined && output !== 'json' && output !== 'table') {
    throw new UsageError(`--output ${JSON.stringify(output)} is not json or table`);
  }
  return {
    command,
    common: flags,
    plugins,
    output: output === 'json' ? 'json' : 'table',
    mode,
  };
}

/** `--mode` and its flags; a flag of another mode (its own, or a common one only it uses) is a usage error. */
function modeOf(
  program: Program,
  slots: readonly FlagSlot[],
  values: Readonly<Record<string, unknown>>,
  value: (slot: FlagSlot) => unknown,
): ChosenMode {
  const modeSlot = slots.find((slot) => slot.name === 'mode' && slot.plugin === undefined);
  const name = modeSlot === undefined ? DEVICE_PLUGIN_MODE : (value(modeSlot) as string);
  const serveMode = program.modes[name];
  if (serveMode === undefined) throw new Error(`${program.binary}: the program has no ${name} serve mode`);
  const flags: Record<string, unknown> = {};
  for (const slot of slots) {
    const owner =
      slot.modeOf ??
      (slot.plugin === undefined && slot.configOf === undefined
        ? commonFlagOwner(program, slot.name)
        : undefined);
    if (values[slot.name] !== undefined && owner !== undefined && owner !== name)
      throw new UsageError(`--${slot.name} applies to --mode ${owner} only, not --mode ${name}`);
    if (slot.modeOf === name && slot.plugin === undefined) flags[slot.name] = value(slot);
  }
  return { name, serveMode, flags };
}

/** `--device-list-strategy`: undefined when absent (each resource's default), never an empty list. */
function strategyOf(
  raw: unknown,
  common: (name: string) => unknown,
): readonly DeviceListStrategy[] | undefined {
  if (raw === undefined) return undefined;
  const list = common('device-list-strategy') as readonly DeviceListStrategy[];
  if (list.length === 0)
    throw new UsageError(
      `--device-list-strategy names no strategy: expected ${DEVICE_LIST_STRATEGIES.join(', ')}`,
    );
  return list;
}

/** Checks that the roots exist and are directories; throws {@link UsageError} naming the flag and the path. */
export function checkRoots(flags: CommonFlags, program?: Program): Promise<void> {
  return requireDirectories([
    ['--sysfs-root', flags.sysfsRoot],
    ['--dev-root', flags.devRoot],
    ...(program === undefined || readsProcfs(program) ? [['--proc-root', flags.procRoot] as const] : []),
  ]);
}

/** The --help text: commands, every flag with its default, exit codes; generated from the declared flags. */
export function formatHelp(program: Program): string {
  const slots = slotsOf(program);
  const left = (slot: FlagSlot): string =>
    `--${slot.name}${slot.flag.valueName === undefined ? '' : ` ${slot.flag.valueName}`}`;
  const lines = [...slots.map(left), '--output json|table'];
  const width = Math.max(...lines.map((line) => line.length));
  const row = (slot: FlagSlot): string => {
    const shown = slot.flag.defaultText === undefined ? '' : ` [${slot.flag.defaultText}]`;
    const only =
      slot.modeOf !== undefined ? ` (--mode ${slot.modeOf})` : slot.serveOnly === true ? ' (serve)' : '';
    return `  ${left(slot).padEnd(width)}  ${slot.flag.description}${shown}${only}`;
  };
  const commonRows = slots
    .filter((slot) => slot.plugin === undefined && slot.configOf === undefined)
    .map(row);
  const modeRows = offersModes(program)
    ? modeNames(program).map(
        (name) =>
          `  ${name.padEnd(width)}  ${program.modes[name]?.description ?? ''}${name === DEVICE_PLUGIN_MODE ? ' (default)' : ''}`,
      )
    : [];
  const sections = program.plugins.map((definition, index) => {
    const own = slots.filter((slot) => slot.plugin?.index === index || slot.configOf === index).map(row);
    const interval = definition.scan.interval ?? '1s';
    return [
      program.multi
        ? `${definition.name}: ${definition.title} (default poll interval ${interval}):`
        : `${definition.title} flags:`,
      ...own,
    ].join('\n');
  });
  return [
    program.title,
    '',
    'Usage:',
    `  ${program.binary} serve    [flags]                          run: discover, serve, register, watch`,
    `  ${program.binary} discover [flags] [--output json|table]    scan once, print the result, exit (no kubelet needed)`,
    `  ${program.binary} --version | --help`,
    '',
    'Flags:',
    ...commonRows,
    `  ${'--output json|table'.padEnd(width)}  discover only: output format [table]`,
    '',
    ...(modeRows.length > 0 ? ['Modes (--mode):', ...modeRows, ''] : []),
    ...sections.flatMap((section) => [section, '']),
    ...program.plugins.flatMap((definition) =>
      (definition.compat ?? []).flatMap((layer) => [formatCompatHelp(layer, !program.multi), '']),
    ),
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
