import type { ConfigIssue } from '../../config/config-error';

/** What an anchor's flag or environment variable does here, when it is accepted. */
export interface CompatTarget {
  /** Sets one of our own flags as if given on the command line (`flag('config', path)`); booleans take no value. */
  flag(name: string, value?: string): void;
  /** Sets a key of the plugin's configuration input, after the file was loaded (and converted), before validation. */
  setConfig(path: readonly (string | number)[], value: unknown): void;
  /**
   * Appends to a list key (a repeatable flag): the first append of a command line replaces the file's list, as
   * flags win over files; later ones add to it.
   */
  appendConfig(path: readonly (string | number)[], value: unknown): void;
}

/** An anchor's flag or environment variable that means something here. */
export interface AcceptedCompatOption {
  /** `boolean`: `-name`, `-name=false`; `value`: `-name v`, `-name=v`. */
  readonly kind: 'boolean' | 'value';
  /** One line for --help: what it does here. */
  readonly description: string;
  /** Applies it (booleans receive `true`/`false`); throws an Error saying what is wrong with the value. */
  readonly apply: (value: string, to: CompatTarget) => void;
}

/** An anchor's flag or environment variable refused with exit 2, saying what kdp does instead. */
export interface RefusedCompatOption {
  readonly kind: 'boolean' | 'value';
  /** Why, and what to use instead. */
  readonly refuse: string;
}

/** An anchor's flag or environment variable: accepted with the anchor's meaning, or refused (never ignored). */
export type CompatOption = AcceptedCompatOption | RefusedCompatOption;

/** The result of converting an anchor's configuration document to ours. */
export interface CompatConversion {
  /** Our configuration input (validated by the plugin's schema afterwards). */
  readonly config: unknown;
  /** Keys refused or values that cannot be converted; any error stops the load (exit 2 at start). */
  readonly errors?: readonly ConfigIssue[];
  /** Accepted, but worth the operator's attention. */
  readonly warnings?: readonly ConfigIssue[];
}

/** An anchor's configuration file format, detected in a parsed document and converted to ours. */
export interface CompatConfigFormat {
  /** Whether a parsed document (YAML or JSON) is in the anchor's format rather than ours. */
  detect(doc: unknown): boolean;
  /** Converts it to our configuration input. */
  convert(doc: unknown): CompatConversion;
}

/** One anchor's command line, environment, default configuration paths and configuration format. */
export interface CompatLayer {
  /** The project and release followed (`NVIDIA/k8s-device-plugin v0.17`). */
  readonly anchor: string;
  /** The anchor's flags by name, without dashes (`-name`, `--name`, `=value` or a separate value, as Go's flag package). */
  readonly flags?: Readonly<Record<string, CompatOption>>;
  /** The anchor's environment variables by name; applied before its flags, and a flag wins over its variable. */
  readonly env?: Readonly<Record<string, CompatOption>>;
  /** Files the anchor reads when no configuration is named; the first that exists is loaded. */
  readonly defaultConfigPaths?: readonly string[];
  /** The anchor's configuration file format. */
  readonly configFormat?: CompatConfigFormat;
  /** The anchor's binary names (links to the entry in the image): invoked by one, the process is started as the anchor. */
  readonly binaries?: readonly string[];
  /**
   * The anchor's own defaults where ours differ (its device IDs, its metrics port), applied when the process is
   * started as the anchor (invoked by one of its `binaries`, or one of its flags given) before anything
   * else, so that its flags and variables win; flags it sets apply to `serve` only.
   */
  readonly asAnchor?: (to: CompatTarget) => void;
}

/** Whether an option is refused. */
export const isRefused = (option: CompatOption): option is RefusedCompatOption => 'refuse' in option;

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Whether Go's strconv.ParseBool reads `text` as true; anything else, invalid text included, is false (viper's cast.ToBool). */
export const isGoTrue = (text: string): boolean => TRUE.has(text);

/** Parses a boolean as Go's strconv.ParseBool does (`1`, `t`, `true`, `0`, `f`, `FALSE`, …); throws otherwise. */
export function parseGoBool(text: string): boolean {
  if (isGoTrue(text)) return true;
  if (FALSE.has(text)) return false;
  throw new Error(`${JSON.stringify(text)} is not a boolean (true or false)`);
}

/** Parses a decimal integer as Go's flag package does for int flags; throws otherwise. */
export function parseGoInt(text: string): number {
  const trimmed = text.trim();
  if (!/^[+-]?\d{1,15}$/.test(trimmed)) throw new Error(`${JSON.stringify(text)} is not an integer`);
  return Number(trimmed);
}
