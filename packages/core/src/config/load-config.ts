import { readFile, stat } from 'node:fs/promises';
import type * as Yaml from 'yaml';
import type * as z from './z';
import type { $ZodIssue as ZodIssue } from 'zod/v4/core';
import { ConfigError, type ConfigIssue } from './config-error';
import { formatConfigPath } from './format-config-path';

/** What to do with keys a schema does not know (keys that `z.object` would silently strip). */
export type UnknownKeyPolicy = 'error' | 'warn' | 'ignore';

/** Options for `loadConfig` and {@link parseConfigText}. */
export interface LoadConfigOptions {
  /** Unknown keys: `error` (default) fails the load, `warn` returns them in `warnings`, `ignore` drops them. */
  readonly unknownKeys?: UnknownKeyPolicy;
  /** Largest file accepted, in bytes (default 4 MiB). */
  readonly maxBytes?: number;
  /**
   * Chooses the file when the path is a directory (a ConfigMap with one key per node or node group); without it,
   * a directory is an error.
   */
  readonly selectFile?: (dir: string) => Promise<{ readonly file: string; readonly reason: string }>;
  /** Rewrites the parsed input before validation (an anchor's format converted to ours); may throw ConfigError. */
  readonly transform?: ConfigTransform;
}

/** Rewrites a parsed configuration input before it is validated; throws {@link ConfigError} for a bad one. */
export type ConfigTransform = (
  input: unknown,
  file: string,
) => { readonly input: unknown; readonly warnings?: readonly ConfigIssue[]; readonly anchor?: string };

/** A configuration that passed its schema, with what was accepted but worth a warning. */
export interface LoadedConfig<T> {
  /** The value the schema produced (defaults filled in). */
  readonly value: T;
  /** Unknown keys under the `warn` policy and YAML warnings; the load succeeded regardless. */
  readonly warnings: readonly ConfigIssue[];
  /** The file it came from; absent when the defaults were used. */
  readonly file?: string;
  /** The file's text, so that a reload can tell whether anything changed. */
  readonly text?: string;
  /** Why this file was chosen, when the configuration path is a directory. */
  readonly selected?: string;
}

const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Reads a YAML or JSON configuration file and checks it against a zod schema. Rejects with a
 * {@link ConfigError} (and nothing else) for every way the file can be wrong: missing, unreadable,
 * too large, bad syntax, wrong shape, unknown keys.
 */
export async function loadConfig<S extends z.ZodType>(
  file: string,
  schema: S,
  options: LoadConfigOptions = {},
): Promise<LoadedConfig<z.output<S>>> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let text: string;
  let selected: { readonly file: string; readonly reason: string } | undefined;
  try {
    let info = await stat(file);
    if (info.isDirectory() && options.selectFile !== undefined) {
      selected = await options.selectFile(file);
      file = selected.file;
      info = await stat(file);
    }
    if (info.isDirectory())
      throw new ConfigError(file, [{ path: '', message: 'is a directory, not a file' }]);
    if (info.size > maxBytes) {
      throw new ConfigError(file, [
        { path: '', message: `file is ${info.size} bytes, more than the ${maxBytes} accepted` },
      ]);
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(file, [{ path: '', message: describeReadError(error) }]);
  }
  const loaded = parseConfigText(file, text, schema, options);
  // The chosen file is part of the text compared on reload: another key chosen is a change.
  return selected === undefined
    ? loaded
    : { ...loaded, text: `${selected.file}\n${text}`, selected: `${selected.file} (${selected.reason})` };
}

/** Parses configuration text (YAML 1.2, so JSON too) and checks it; throws {@link ConfigError} only. */
export function parseConfigText<S extends z.ZodType>(
  file: string,
  text: string,
  schema: S,
  options: LoadConfigOptions = {},
): LoadedConfig<z.output<S>> {
  const warnings: ConfigIssue[] = [];
  let input: unknown;
  try {
    // The YAML parser is loaded on this path only: a plugin without a configuration file never evaluates it.
    const { parseDocument } = require('yaml') as typeof Yaml;
    const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
    if (doc.errors.length > 0) {
      throw new ConfigError(
        file,
        doc.errors.map((e) => ({ path: '', message: `syntax error: ${firstLine(e.message)}` })),
      );
    }
    for (const w of doc.warnings)
      warnings.push({ path: '', message: `YAML warning: ${firstLine(w.message)}` });
    input = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(file, [{ path: '', message: `syntax error: ${firstLine(errorMessage(error))}` }]);
  }
  // An empty file (or one holding only comments) means "all defaults".
  if (input === null || input === undefined) input = {};
  const result = validateConfigValue(file, input, schema, options);
  return { value: result.value, warnings: [...warnings, ...result.warnings], file, text };
}

/**
 * Checks an already-parsed value against a schema (the defaults used when no file is given go through
 * here too). Throws {@link ConfigError} naming `file` on failure.
 */
export function validateConfigValue<S extends z.ZodType>(
  file: string,
  input: unknown,
  schema: S,
  options: LoadConfigOptions = {},
): { value: z.output<S>; warnings: ConfigIssue[] } {
  const transformed = options.transform?.(input, file);
  if (transformed !== undefined) {
    const { transform: _done, ...rest } = options;
    const result = validateConfigValue(file, transformed.input, schema, rest);
    return { value: result.value, warnings: [...(transformed.warnings ?? []), ...result.warnings] };
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ConfigError(file, parsed.error.issues.flatMap(toConfigIssues));
  const policy = options.unknownKeys ?? 'error';
  const unknown = policy === 'ignore' ? [] : findUnknownKeys(input, parsed.data, []);
  if (policy === 'error' && unknown.length > 0) throw new ConfigError(file, unknown);
  return { value: parsed.data, warnings: policy === 'warn' ? unknown.map(ignored) : [] };
}

function ignored(issue: ConfigIssue): ConfigIssue {
  return { path: issue.path, message: `${issue.message}; ignored` };
}

function toConfigIssues(issue: ZodIssue): ConfigIssue[] {
  const path = issue.path;
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: formatConfigPath([...path, key]), message: 'unknown key' }));
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const alternatives = [...new Set(issue.errors.map((alt) => alt.map((a) => plain(a.message)).join(', ')))];
    return [
      {
        path: formatConfigPath(path),
        message: `matches none of the accepted forms: ${alternatives.join('; or ')}`,
      },
    ];
  }
  return [{ path: formatConfigPath(path), message: plain(issue.message) }];
}

function plain(message: string): string {
  return message.replace(/^Invalid input: /, '');
}

/** Keys present in the input object but dropped from the schema's output: the keys the schema does not know. */
function findUnknownKeys(input: unknown, output: unknown, path: PropertyKey[]): ConfigIssue[] {
  if (Array.isArray(input) && Array.isArray(output) && input.length === output.length) {
    return input.flatMap((item, i) => findUnknownKeys(item, output[i], [...path, i]));
  }
  if (!isPlainObject(input) || !isPlainObject(output)) return [];
  const issues: ConfigIssue[] = [];
  for (const key of Object.keys(input)) {
    if (Object.prototype.hasOwnProperty.call(output, key)) {
      issues.push(...findUnknownKeys(input[key], output[key], [...path, key]));
    } else {
      const suggestion = closestKey(
        key,
        Object.keys(output).filter((k) => !Object.prototype.hasOwnProperty.call(input, k)),
      );
      issues.push({
        path: formatConfigPath([...path, key]),
        message: suggestion ? `unknown key (did you mean "${suggestion}"?)` : 'unknown key',
      });
    }
  }
  return issues;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function closestKey(key: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'file not found';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    default:
      return `cannot read: ${errorMessage(error)}`;
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? '').replace(/:$/, '').trim();
}
