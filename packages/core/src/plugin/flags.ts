/** The kinds of value a command-line flag takes. */
export type FlagKind = 'string' | 'path' | 'number' | 'duration' | 'boolean' | 'enum' | 'list';

/**
 * One command-line flag: how it is written, documented and parsed. Build flags with the {@link flag}
 * helpers; the runtime parses them with node:util `parseArgs` and generates `--help` from them.
 */
export interface Flag<T> {
  readonly kind: FlagKind;
  /** One line for --help. */
  readonly description: string;
  /** The value placeholder in --help (`DIR`, `DURATION`); undefined for a boolean. */
  readonly valueName: string | undefined;
  /** The value when the flag is absent. */
  readonly defaultValue: T;
  /** How --help shows the default; undefined: no default shown. */
  readonly defaultText: string | undefined;
  /** Whether the flag may be given more than once (lists: the occurrences are joined). */
  readonly multiple: boolean;
  /** Turns every occurrence's text into the value; throws an Error saying what is wrong (without the flag's name). */
  parse(texts: readonly string[]): T;
  /** Acts only in `serve`: `discover` refuses it. */
  readonly serveOnly?: boolean;
  /** Acts only in this serve mode (`dra`): `serve` in another mode refuses it (exit 2). Implies `serveOnly`. */
  readonly mode?: string;
}

/** A plugin's own flags, by name (without the leading `--`). */
export type FlagSpecs = Readonly<Record<string, Flag<unknown>>>;

/** The parsed values of a set of flags. */
export type FlagValues<F extends FlagSpecs> = {
  readonly [K in keyof F]: F[K] extends Flag<infer T> ? T : never;
};

interface BaseOptions {
  /** One line for --help. */
  readonly description: string;
  /** Acts only in `serve` (files written, timings): `discover` refuses it (exit 2) and --help says `(serve)`. */
  readonly serveOnly?: boolean;
  /** Acts only in this serve mode (`dra`): another mode refuses it (exit 2). Implies `serveOnly`. */
  readonly mode?: string;
  /** The value placeholder in --help. */
  readonly valueName?: string;
}

/** Options of `flag.string` and `flag.path`. */
export interface StringFlagOptions extends BaseOptions {
  readonly default?: string;
}

/** Options of `flag.number`. */
export interface NumberFlagOptions extends BaseOptions {
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
  /** Only whole numbers (default true). */
  readonly integer?: boolean;
}

/** Options of `flag.duration`: values like `500ms`, `1s`, `2m30s`, or a bare number of milliseconds. */
export interface DurationFlagOptions extends BaseOptions {
  /** The default, written as on the command line (`1s`). */
  readonly default?: string;
  /** The smallest accepted duration (`50ms`). */
  readonly min?: string;
  /** The largest accepted duration. */
  readonly max?: string;
}

/** Options of `flag.boolean`. */
export interface BooleanFlagOptions {
  readonly description: string;
  readonly default?: boolean;
  /** Acts only in `serve`: `discover` refuses it (exit 2) and --help says `(serve)`. */
  readonly serveOnly?: boolean;
  /** Acts only in this serve mode (`dra`): another mode refuses it (exit 2). Implies `serveOnly`. */
  readonly mode?: string;
}

/** Options of `flag.enum`. */
export interface EnumFlagOptions<V extends string> extends BaseOptions {
  readonly values: readonly V[];
  readonly default?: V;
}

/** Options of `flag.list`: comma-separated, and repeatable. */
export interface ListFlagOptions<V extends string> extends BaseOptions {
  /** When given, every item must be one of these. */
  readonly values?: readonly V[];
  readonly default?: readonly V[];
}

/** A flag's value type: `T` when its options give a default, else `T | undefined`. */
export type DefaultedValue<O, T> = O extends { readonly default: unknown } ? T : T | undefined;

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration into milliseconds: one or more `<number><unit>` parts (`ms`, `s`, `m`, `h`: `1m30s`,
 * `1.5s`), or a bare whole number of milliseconds. Throws an Error for anything else.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d{1,12}$/.test(trimmed)) return Number(trimmed);
  const part = /(\d{1,12}(?:\.\d{1,9})?)(ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < trimmed.length) {
    part.lastIndex = at;
    const match = part.exec(trimmed);
    if (match === null) break;
    total += Number(match[1]) * (UNITS[match[2] as string] as number);
    at = part.lastIndex;
  }
  if (trimmed === '' || at !== trimmed.length) {
    throw new Error(`${JSON.stringify(text)} is not a duration (e.g. 500ms, 1s, 2m30s)`);
  }
  return Math.round(total);
}

/** Formats milliseconds the way `parseDuration` reads them back (`1s`, `250ms`, `1m30s`). */
export function formatDuration(ms: number): string {
  if (ms === Number.POSITIVE_INFINITY) return 'forever';
  if (ms === 0) return '0s';
  let rest = Math.round(ms);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.join('');
}

const last = (texts: readonly string[]): string => texts[texts.length - 1] ?? '';

const make = <T>(
  kind: FlagKind,
  options: BaseOptions,
  valueName: string | undefined,
  defaultValue: T,
  defaultText: string | undefined,
  parse: (texts: readonly string[]) => T,
  multiple = false,
): Flag<T> => ({
  kind,
  description: options.description,
  valueName,
  defaultValue,
  defaultText,
  multiple,
  parse,
  ...(options.serveOnly === true || options.mode !== undefined ? { serveOnly: true } : {}),
  ...(options.mode !== undefined ? { mode: options.mode } : {}),
});

const nonEmpty = (text: string): string => {
  if (text.trim() === '') throw new Error('must not be empty');
  return text;
};

/** Builders for typed plugin flags; the value type follows from the options (a default makes it non-optional). */
export const flag = {
  /** Free text. */
  string<O extends StringFlagOptions>(options: O): Flag<DefaultedValue<O, string>> {
    return make(
      'string',
      options,
      options.valueName ?? 'VALUE',
      options.default as DefaultedValue<O, string>,
      options.default,
      (texts) => nonEmpty(last(texts)),
    );
  },
  /** A file or directory path (not checked for existence here). */
  path<O extends StringFlagOptions>(options: O): Flag<DefaultedValue<O, string>> {
    return make(
      'path',
      options,
      options.valueName ?? 'PATH',
      options.default as DefaultedValue<O, string>,
      options.default,
      (texts) => nonEmpty(last(texts)),
    );
  },
  /** A number within [min, max]; whole unless `integer: false`. */
  number<O extends NumberFlagOptions>(options: O): Flag<DefaultedValue<O, number>> {
    const integer = options.integer !== false;
    return make(
      'number',
      options,
      options.valueName ?? 'N',
      options.default as DefaultedValue<O, number>,
      options.default === undefined ? undefined : String(options.default),
      (texts) => {
        const text = last(texts).trim();
        const value = Number(text);
        if (text === '' || !Number.isFinite(value))
          throw new Error(`${JSON.stringify(text)} is not a number`);
        if (integer && !Number.isInteger(value)) throw new Error(`${text} is not a whole number`);
        if (options.min !== undefined && value < options.min)
          throw new Error(`${text} is below ${options.min}`);
        if (options.max !== undefined && value > options.max)
          throw new Error(`${text} is above ${options.max}`);
        return value;
      },
    );
  },
  /** A duration, parsed to milliseconds (see `parseDuration`). */
  duration<O extends DurationFlagOptions>(options: O): Flag<DefaultedValue<O, number>> {
    const min = options.min === undefined ? undefined : parseDuration(options.min);
    const max = options.max === undefined ? undefined : parseDuration(options.max);
    return make(
      'duration',
      options,
      options.valueName ?? 'DURATION',
      (options.default === undefined ? undefined : parseDuration(options.default)) as DefaultedValue<
        O,
        number
      >,
      options.default,
      (texts) => {
        const value = parseDuration(last(texts));
        if (min !== undefined && value < min)
          throw new Error(`${last(texts)} is shorter than ${options.min}`);
        if (max !== undefined && value > max) throw new Error(`${last(texts)} is longer than ${options.max}`);
        return value;
      },
    );
  },
  /** A switch: present means true. */
  boolean(options: BooleanFlagOptions): Flag<boolean> {
    return make('boolean', options, undefined, options.default ?? false, undefined, () => true);
  },
  /** One of a fixed set of words. */
  enum<V extends string, O extends EnumFlagOptions<V>>(
    options: O & EnumFlagOptions<V>,
  ): Flag<DefaultedValue<O, V>> {
    return make(
      'enum',
      options,
      options.valueName ?? options.values.join('|'),
      options.default as DefaultedValue<O, V>,
      options.default,
      (texts) => {
        const text = last(texts);
        if (!(options.values as readonly string[]).includes(text)) {
          throw new Error(`${JSON.stringify(text)} is not one of ${options.values.join(', ')}`);
        }
        return text as V;
      },
    );
  },
  /** A list: comma-separated, and the flag may be repeated; empty items are dropped. */
  list<V extends string = string>(options: ListFlagOptions<V>): Flag<readonly V[]> {
    return make(
      'list',
      options,
      options.valueName ?? 'LIST',
      options.default ?? [],
      options.default === undefined ? undefined : options.default.join(','),
      (texts) => {
        const items = texts
          .flatMap((text) => text.split(','))
          .map((item) => item.trim())
          .filter((item) => item !== '');
        const allowed = options.values as readonly string[] | undefined;
        const bad = allowed === undefined ? [] : items.filter((item) => !allowed.includes(item));
        if (bad.length > 0)
          throw new Error(`${bad.map((b) => JSON.stringify(b)).join(', ')}: expected ${allowed?.join(', ')}`);
        return [...new Set(items)] as V[];
      },
      true,
    );
  },
};
