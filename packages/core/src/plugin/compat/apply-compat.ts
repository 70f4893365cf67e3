import { UsageError } from '../exit-code';
import {
  isRefused,
  parseGoBool,
  type CompatLayer,
  type CompatOption,
  type CompatTarget,
} from './compat-layer';

/** A key of the configuration input set by an anchor flag or variable. */
export interface ConfigPatch {
  readonly path: readonly (string | number)[];
  readonly value: unknown;
  /** Where it came from (`-shared-dev-num`, `MIG_STRATEGY`). */
  readonly source: string;
}

/** Options of {@link applyCompat}. */
export interface ApplyCompatOptions {
  readonly layers: readonly CompatLayer[];
  /** The command line after the program name. */
  readonly argv: readonly string[];
  /** The process environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Whether a `--name value` naming one of our own flags is ours: undefined when we have no such flag, else
   * whether its value is valid for ours (an anchor flag of the same name is then used only when it is not).
   */
  readonly ownFlag: (name: string, value: string | undefined) => boolean | undefined;
  /** Whether one of our flags takes a value (`--config FILE`) rather than none (`--help`). */
  readonly ownTakesValue: (name: string) => boolean;
}

/** The command line with every anchor flag and variable turned into our own flags and configuration keys. */
export interface CompatResult {
  /** Our command line: the original with anchor flags removed, our flags they set added (explicit flags win). */
  readonly argv: readonly string[];
  /** Configuration keys to set, in order (a later patch of the same key wins). */
  readonly patches: readonly ConfigPatch[];
  /** One line per anchor flag or variable applied, for the start-up log. */
  readonly applied: readonly string[];
  /** Whether an anchor flag was on the command line (a command line without a command then means `serve`). */
  readonly anchorFlags: boolean;
}

interface Found {
  readonly layer: CompatLayer;
  readonly option: CompatOption;
}

/**
 * Maps the anchors' flags (Go style: `-name`, `--name`, `=value` or the next argument) and environment variables
 * onto our command line and configuration: variables first, then flags (a flag wins over a variable), and our own
 * flags given explicitly win over both. A refused option, an unknown single-dash flag or a bad value throws a
 * {@link UsageError} naming it.
 */
export function applyCompat(options: ApplyCompatOptions): CompatResult {
  const { layers } = options;
  /** Every layer's option of a name, in the layers' order. */
  const lookup = (kind: 'flags' | 'env', name: string): Found[] =>
    layers.flatMap((layer) => {
      const option = layer[kind]?.[name];
      return option === undefined ? [] : [{ layer, option }];
    });
  const patches: ConfigPatch[] = [];
  const applied: string[] = [];
  /** Our flags set by anchors, by priority: env (0) < anchor flag (1). */
  const set = new Map<string, { value: string | undefined; priority: number }>();
  /** Lists built by repeatable flags, by path: the first append replaces the file's list. */
  const lists = new Map<string, unknown[]>();

  const applyOne = (found: Found, label: string, value: string, priority: number): void => {
    const { option, layer } = found;
    if (isRefused(option))
      throw new UsageError(`${label} (${layer.anchor}) is not supported: ${option.refuse}`);
    const effects: string[] = [];
    const flags: Array<[string, string | undefined]> = [];
    const configPatches: ConfigPatch[] = [];
    const appends: Array<[readonly (string | number)[], unknown]> = [];
    const target: CompatTarget = {
      flag: (name, flagValue) => {
        flags.push([name, flagValue]);
        effects.push(`--${name}${flagValue === undefined ? '' : ` ${flagValue}`}`);
      },
      setConfig: (path, configValue) => {
        configPatches.push({ path, value: configValue, source: label });
        effects.push(`${path.join('.')}=${JSON.stringify(configValue)}`);
      },
      appendConfig: (path, configValue) => {
        appends.push([path, configValue]);
        effects.push(`${path.join('.')}+=${JSON.stringify(configValue)}`);
      },
    };
    let normalised = value;
    if (option.kind === 'boolean') {
      try {
        normalised = String(parseGoBool(value));
      } catch (error) {
        throw new UsageError(`${label}: ${(error as Error).message}`);
      }
    }
    try {
      option.apply(normalised, target);
    } catch (error) {
      throw new UsageError(`${label}: ${(error as Error).message}`);
    }
    // Effects only once the option applied cleanly: a failing one may be another layer's to take.
    for (const [name, flagValue] of flags) {
      const before = set.get(name);
      if (before === undefined || before.priority <= priority) set.set(name, { value: flagValue, priority });
    }
    patches.push(...configPatches);
    for (const [path, configValue] of appends) {
      const key = JSON.stringify(path);
      let list = lists.get(key);
      if (list === undefined) {
        list = [];
        lists.set(key, list);
        patches.push({ path, value: list, source: label });
      }
      list.push(configValue);
    }
    // An option that changes nothing says why in the log line (its description).
    applied.push(
      `${label}${option.kind === 'boolean' ? `=${normalised}` : ` ${value}`} (${layer.anchor}) → ${effects.join(', ') || `nothing to change: ${option.description}`}`,
    );
  };
  /**
   * Applies the first of the layers' options of one name that takes the value: two anchors may both know a
   * name (klog's `-v N` and another's `-v` version switch). None does: the first one's error.
   */
  const apply = (candidates: readonly Found[], label: string, value: string, priority: number): void => {
    let firstError: UsageError | undefined;
    for (const found of candidates) {
      try {
        applyOne(found, label, value, priority);
        return;
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        firstError ??= error;
      }
    }
    if (firstError !== undefined) throw firstError;
  };

  for (const layer of layers) {
    for (const name of Object.keys(layer.env ?? {})) {
      const value = options.env[name];
      if (value === undefined || value === '') continue;
      const found = lookup('env', name).filter((candidate) => candidate.layer === layer);
      if (found.length > 0) apply(found, `environment variable ${name}`, value, 0);
    }
  }

  const rest: string[] = [];
  const explicit = new Set<string>();
  let anchorFlags = false;
  const argv = options.argv;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const match = /^(--?)([A-Za-z][\w.-]*)(?:=([\s\S]*))?$/.exec(token);
    if (match === null) {
      rest.push(token);
      continue;
    }
    const [, dashes, name = '', inline] = match;
    const found = lookup('flags', name);
    const next = argv[i + 1];
    if (dashes === '--') {
      const valueForOurs = inline ?? (options.ownTakesValue(name) ? next : undefined);
      const ours = options.ownFlag(name, valueForOurs);
      if (ours === true || (ours === false && found.length === 0)) {
        explicit.add(name);
        rest.push(token);
        continue;
      }
    }
    if (found.length === 0) {
      if (dashes === '-' && name.length > 1) throw new UsageError(`unknown flag -${name}`);
      rest.push(token);
      continue;
    }
    anchorFlags = true;
    let value: string;
    if (inline !== undefined) value = inline;
    else if (found[0]?.option.kind === 'boolean') value = 'true';
    else {
      if (next === undefined) throw new UsageError(`${dashes}${name} needs a value`);
      value = next;
      i++;
    }
    apply(found, `${dashes}${name}`, value, 1);
  }

  const added: string[] = [];
  for (const [name, { value }] of set) {
    if (explicit.has(name)) continue;
    added.push(`--${name}`, ...(value === undefined ? [] : [value]));
  }
  return { argv: [...added, ...rest], patches, applied, anchorFlags };
}

/** Sets the configuration keys of `patches` in a copy of a configuration input (objects created on the way). */
export function applyConfigPatches(input: unknown, patches: readonly ConfigPatch[]): unknown {
  if (patches.length === 0) return input;
  const root: Record<string, unknown> =
    typeof input === 'object' && input !== null && !Array.isArray(input)
      ? (structuredClone(input as object) as Record<string, unknown>)
      : {};
  for (const { path, value } of patches) {
    let node: Record<string | number, unknown> = root;
    path.forEach((key, index) => {
      if (index === path.length - 1) {
        node[key] = structuredClone(value);
        return;
      }
      const child = node[key];
      if (typeof child !== 'object' || child === null)
        node[key] = typeof path[index + 1] === 'number' ? [] : {};
      node = node[key] as Record<string | number, unknown>;
    });
  }
  return root;
}
