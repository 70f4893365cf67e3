import {
  closeSync,
  cpSync,
  existsSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type * as FastCheck from 'fast-check';
import type { FastCheckModule } from './corrupt-tree';
import { discoverDocumentProblems } from './discover-document-problems';
import { createEscapeSentinel, type EscapeSentinel } from './escape-sentinel';
import {
  assertProperty,
  fuzzWorkDir,
  RUN_TIMEOUT_MS,
  type CommandOutcome,
  type FuzzMachine,
} from './fuzz-discover-scan';
import { changedPaths, snapshotTree } from './snapshot-tree';

/** Options of {@link fuzzDiscoverConfig}. */
export interface DiscoverConfigFuzzOptions {
  /** The fixture tree discover runs on (a `SysfsFixture`'s base); copied once, never changed. */
  readonly template: { readonly base: string };
  /** Valid configurations (as objects) that the hostile ones are derived from. */
  readonly validConfigs: readonly unknown[];
  /** Runs `discover --output json --config <configFile>` on the machine. */
  readonly discover: (machine: FuzzMachine, configFile: string) => Promise<CommandOutcome>;
  /** Where paths in the configurations lead, checked after every run (default: one made and removed for this call). */
  readonly sentinel?: EscapeSentinel;
  /** More hostile strings for the fields this plugin's configuration has (device globs, directories). */
  readonly hostileStrings?: readonly string[];
  readonly numRuns: number;
  readonly seed: number;
  /** Where the machine copy and the configuration files go (default `fuzzWorkDir()`). */
  readonly workDir?: string;
}

/** What a configuration fuzz run saw. */
export interface DiscoverConfigFuzzReport {
  readonly runs: number;
  /** Runs that exited 0 (the hostile part was valid, defaulted or an unknown key warned about). */
  readonly accepted: number;
  /** Runs that exited 2 naming the file. */
  readonly rejected: number;
}

/** The own properties of a clean Object.prototype (read when this module loads, before any fuzz run). */
const PROTOTYPE_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The name of a link in each root of the fuzzed machine that leads to the sentinel. */
export const ESCAPE_LINK = 'kdp-escape';

type Path = readonly (string | number)[];

/** One change to a valid configuration. */
type ConfigMutation =
  | { readonly op: 'set'; readonly path: Path; readonly value: unknown }
  | { readonly op: 'add-key'; readonly path: Path; readonly key: string; readonly value: unknown }
  | { readonly op: 'delete'; readonly path: Path };

/** A configuration file to try: a mutated valid one, written as JSON, or raw hostile text. */
type ConfigCase =
  | {
      readonly kind: 'mutated';
      readonly base: number;
      readonly mutations: readonly ConfigMutation[];
      readonly pretty: boolean;
    }
  | { readonly kind: 'raw'; readonly text: string }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'oversize' };

const nested = (depth: number, leaf: unknown, key?: string): unknown => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = key === undefined ? [value] : { [key]: value };
  return value;
};

/** YAML and JSON texts that break naive loaders: alias bombs, deep nesting, tags, prototype keys, odd scalars. */
const RAW_TEXTS: readonly string[] = [
  '',
  '~',
  '[]',
  '42',
  '"text"',
  'true',
  '.nan',
  '-.inf',
  '\uFEFF{}',
  '{',
  '- a\n b: c',
  '\t: x',
  `a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from(
    { length: 9 },
    (_, i) =>
      `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
        .fill(`*${String.fromCharCode(97 + i)}`)
        .join(', ')}]`,
  ).join('\n')}\n`,
  `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
  `${'- '.repeat(5_000)}x`,
  'a: !!binary aGVsbG8=',
  'a: !!js/function "function () { return 1 }"',
  'a: !custom {b: 1}',
  'x: 1\nx: 2',
  '__proto__: {polluted: 1}',
  '{"__proto__": {"polluted": 1}}',
  'constructor: {prototype: {polluted: 1}}',
  'base: &b {polluted: 1}\nmerged: {<<: *b}',
  '? [complex, key]\n: value',
  '%YAML 1.1\n---\nyes: on',
  '--- a\n--- b',
];

/** Large values, made only when a configuration is written (so that a counterexample prints as its name). */
const LARGE_VALUES: Readonly<Record<string, () => unknown>> = {
  'a 100,000-character string': () => 'x'.repeat(100_000),
  'an array of 10,000 strings': () => Array.from({ length: 10_000 }, () => 'a'),
  'an object of 2,000 keys': () => Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, i])),
  'arrays 2,000 deep': () => nested(2_000, 1),
  'objects 2,000 deep': () => nested(2_000, 1, 'a'),
};

/** A placeholder for one of {@link LARGE_VALUES}. */
class Large {
  constructor(readonly name: string) {}
}

/** The value with every {@link Large} placeholder made. */
function materialize(value: unknown): unknown {
  if (value instanceof Large) return (LARGE_VALUES[value.name] as () => unknown)();
  return value;
}

/** Values that schemas get wrong: huge, negative and non-finite numbers, wrong types, long strings, deep nesting. */
function hostileValues(fc: FastCheckModule, strings: readonly string[]): FastCheck.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(...Object.keys(LARGE_VALUES)).map((name) => new Large(name)),
    fc.constantFrom<unknown>(
      1e308,
      -1e308,
      2 ** 53 + 2,
      -(2 ** 53) - 2,
      -1,
      -0,
      0.5,
      5e-324,
      null,
      true,
      false,
      [],
      {},
      [[[]]],
    ),
    fc.constantFrom(...strings),
    fc.string({ maxLength: 40 }),
    fc.integer(),
    fc.double(),
  );
}

/** Keys that a loader or a schema may treat specially. */
const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  ' ',
  'a.b',
  '[0]',
  'kdpUnknownKey',
  'x'.repeat(1_000),
];

/** Every path into a value (the root `[]` included), depth first. */
function pathsOf(value: unknown, path: Path = []): Path[] {
  const paths: Path[] = [path];
  if (Array.isArray(value)) value.forEach((item, i) => paths.push(...pathsOf(item, [...path, i])));
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...path, key]));
  return paths;
}

const own = (target: object, key: string | number, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
};

/** Applies mutations to a copy of `config`; a mutation whose path no longer exists is dropped. */
function mutate(
  config: unknown,
  mutations: readonly ConfigMutation[],
): { value: unknown; applied: ConfigMutation[] } {
  let root: unknown = structuredClone(config);
  const applied: ConfigMutation[] = [];
  const parentOf = (path: Path): Record<string | number, unknown> | undefined => {
    let node: unknown = root;
    for (const key of path.slice(0, -1)) {
      if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, key))
        return undefined;
      node = (node as Record<string | number, unknown>)[key];
    }
    return node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>) : undefined;
  };
  for (const mutation of mutations) {
    const key = mutation.path[mutation.path.length - 1];
    if (mutation.op === 'set' && key === undefined) root = materialize(mutation.value);
    else if (mutation.op === 'set' || mutation.op === 'delete') {
      const parent = key === undefined ? undefined : parentOf(mutation.path);
      if (parent === undefined || key === undefined || !Object.prototype.hasOwnProperty.call(parent, key))
        continue;
      if (mutation.op === 'set') own(parent, key, materialize(mutation.value));
      else if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
      else delete parent[key];
    } else {
      const target = key === undefined ? root : parentOf(mutation.path)?.[key];
      if (target === null || typeof target !== 'object' || Array.isArray(target)) continue;
      own(target, mutation.key, materialize(mutation.value));
    }
    applied.push(mutation);
  }
  return { value: root, applied };
}

/** A field path as a message names it (`configList[0].selectors`): one identifier or index, then more. */
const FIELD =
  /^(?:[A-Za-z_$][\w$-]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])(?:\.[A-Za-z_$][\w$-]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])*: /;

/**
 * Problems of the file as a whole, fair even when the change was deep inside: too large (pretty-printed deep
 * nesting is megabytes), or too deeply nested for the YAML parser.
 */
const WHOLE_FILE = /^(?:syntax error: |file is \d+ bytes)/;

/** Stack frames or runtime error names: what a crash prints and a handled problem never does. */
const CRASH = /\n\s+at |TypeError|RangeError|ReferenceError|ERR_[A-Z_]+/;

/**
 * Property: `discover --config` with a hostile configuration (a valid one with values replaced by hostile
 * ones, keys added — `__proto__` included — or removed; or raw text: alias bombs, 20,000-deep nesting, tags,
 * invalid UTF-8, a file over the size limit) either succeeds with a well-formed document (exit 0) or refuses
 * the file with exit 2 and only `FILE: [FIELD: ]problem` lines, naming a field whenever the text parsed and
 * the change was below the top level. Never a crash, a stack trace or a polluted `Object.prototype`; nothing
 * of the sentinel read or printed (paths in the configuration lead there through {@link ESCAPE_LINK} links
 * and `..`); nothing written into the machine. Rejects with the shrunk counterexample.
 */
export async function fuzzDiscoverConfig(
  fc: FastCheckModule,
  options: DiscoverConfigFuzzOptions,
): Promise<DiscoverConfigFuzzReport> {
  const sentinel = options.sentinel ?? createEscapeSentinel();
  const work = mkdtempSync(join(options.workDir ?? fuzzWorkDir(), 'kdp-config-fuzz-'));
  const base = join(work, 'machine');
  cpSync(options.template.base, base, { recursive: true, verbatimSymlinks: true });
  const machine: FuzzMachine = {
    base,
    root: join(base, 'sys'),
    procRoot: join(base, 'proc'),
    devRoot: join(base, 'dev'),
  };
  for (const root of [machine.root, machine.procRoot, machine.devRoot])
    if (existsSync(root)) symlinkSync(sentinel.dir, join(root, ESCAPE_LINK));
  const escape = sentinel.dir;
  const strings = [
    ...(options.hostileStrings ?? []),
    'NaN',
    'Infinity',
    '1e308',
    '0x10',
    '-1',
    '',
    ' ',
    '../../etc',
    '../../../../../../etc/passwd',
    '/etc/passwd',
    '/etc',
    escape,
    `${escape}/bait.txt`,
    `${escape}/bait.fifo`,
    `/dev/../..${escape}/bait/*`,
    `/dev/${ESCAPE_LINK}/*`,
    `/dev/${ESCAPE_LINK}/bait/*`,
    `/dev/${ESCAPE_LINK}/bait.fifo`,
    `/sys/${ESCAPE_LINK}/bait`,
    `${ESCAPE_LINK}/bait`,
    '\0',
    'a\nb',
    '\u202e',
    '$(touch /tmp/kdp-pwned)',
    '/dev/*',
    '/dev/**',
  ];
  const configCase: FastCheck.Arbitrary<ConfigCase> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.nat({ max: options.validConfigs.length - 1 }).chain((index) => {
        const paths = pathsOf(options.validConfigs[index]);
        const path = fc.constantFrom(...paths);
        const mutation: FastCheck.Arbitrary<ConfigMutation> = fc.oneof(
          {
            weight: 4,
            arbitrary: fc.record({
              op: fc.constant('set' as const),
              path,
              value: hostileValues(fc, strings),
            }),
          },
          {
            weight: 2,
            arbitrary: fc.record({
              op: fc.constant('add-key' as const),
              path,
              key: fc.constantFrom(...HOSTILE_KEYS),
              value: hostileValues(fc, strings),
            }),
          },
          { weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), path }) },
        );
        return fc.record({
          kind: fc.constant('mutated' as const),
          base: fc.constant(index),
          mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
          pretty: fc.boolean(),
        });
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('raw' as const), text: fc.constantFrom(...RAW_TEXTS) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('bytes' as const),
        bytes: fc.uint8Array({ maxLength: 64 }).map((b) => Uint8Array.from([...b, 0xff, 0xc3])),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'oversize' as const }) },
  );
  let runs = 0;
  let accepted = 0;
  let rejected = 0;
  let counter = 0;
  const before = snapshotTree(base);
  try {
    await assertProperty(
      fc,
      fc.asyncProperty(configCase, async (input) => {
        const file = join(work, `config-${counter++}.yaml`);
        let fieldExpected = false;
        let shown: string;
        if (input.kind === 'mutated') {
          const { value, applied } = mutate(options.validConfigs[input.base], input.mutations);
          const text = JSON.stringify(value, null, input.pretty ? 2 : undefined) ?? 'null';
          writeFileSync(file, text);
          fieldExpected = applied.length > 0 && applied.every((m) => m.path.length > 0 || m.op === 'add-key');
          shown = text.length > 600 ? `${text.slice(0, 600)}…(${text.length} characters)` : text;
        } else if (input.kind === 'raw') {
          writeFileSync(file, input.text);
          shown = input.text.slice(0, 300);
        } else if (input.kind === 'bytes') {
          writeFileSync(file, input.bytes);
          shown = Buffer.from(input.bytes).toString('latin1');
        } else {
          const fd = openSync(file, 'w');
          ftruncateSync(fd, 5 * 1024 * 1024);
          closeSync(fd);
          shown = '5 MiB of NUL bytes';
        }
        try {
          const fail = (what: string): Error => new Error(`${what}\nconfiguration:\n${shown}`);
          const outcome = await options.discover(machine, file);
          const printed = `${outcome.stdout}\n${outcome.stderr}`;
          if (sentinel.leaked(printed)) throw fail('discover printed what lies outside the roots');
          const touched = sentinel.problems();
          if (touched.length > 0) throw fail(touched.join('\n'));
          const written = changedPaths(before, snapshotTree(base));
          if (written.length > 0) throw fail(`discover wrote into the machine: ${written.join(', ')}`);
          const polluted = Object.getOwnPropertyNames(Object.prototype).filter((k) => !PROTOTYPE_KEYS.has(k));
          if (polluted.length > 0) throw fail(`Object.prototype was polluted with ${polluted.join(', ')}`);
          if (CRASH.test(outcome.stderr))
            throw fail(`discover crashed (exit ${outcome.code}):\n${outcome.stderr}`);
          if (outcome.code === 0) {
            const check = discoverDocumentProblems(outcome.stdout, { forbiddenPathPart: base });
            if (!check.ok) throw fail(check.problems.join('\n'));
            accepted += 1;
          } else if (outcome.code === 2) {
            const lines = outcome.stderr.split('\n').filter((line) => line !== '');
            const prefix = `${file}: `;
            const bad = lines.filter((line) => !line.includes(prefix));
            if (lines.length === 0 || bad.length > 0)
              throw fail(`exit 2 without naming the file:\n${outcome.stderr}`);
            const rest = lines.map((line) => line.slice(line.indexOf(prefix) + prefix.length));
            if (fieldExpected && !rest.some((line) => FIELD.test(line) || WHOLE_FILE.test(line)))
              throw fail(`exit 2 without naming a field:\n${outcome.stderr}`);
            rejected += 1;
          } else throw fail(`discover exited ${outcome.code}:\n${outcome.stderr}`);
          runs += 1;
        } finally {
          rmSync(file, { force: true });
        }
      }),
      // A run that hangs (a blocking read of a FIFO) fails as itself; a normal run takes well under a second.
      { numRuns: options.numRuns, seed: options.seed, timeout: RUN_TIMEOUT_MS },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (options.sentinel === undefined) sentinel.remove();
  }
  return { runs, accepted, rejected };
}
