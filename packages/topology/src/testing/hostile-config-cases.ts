import { closeSync, ftruncateSync, openSync, writeFileSync } from 'node:fs';
import type * as FastCheck from 'fast-check';
import type { FastCheckModule } from './corrupt-tree';

type Path = readonly (string | number)[];

/** One change to a valid configuration. */
type ConfigMutation =
  | { readonly op: 'set'; readonly path: Path; readonly value: unknown }
  | { readonly op: 'add-key'; readonly path: Path; readonly key: string; readonly value: unknown }
  | { readonly op: 'delete'; readonly path: Path };

/** A configuration file to try: a mutated valid one, written as JSON, or raw hostile text. */
export type ConfigCase =
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

/**
 * Configuration files to try: a valid one (of `validConfigs`) with one to three values replaced by hostile ones
 * (`strings` among them), hostile keys added or entries removed; raw hostile YAML; invalid UTF-8; an oversize file.
 */
export function hostileConfigCases(
  fc: FastCheckModule,
  validConfigs: readonly unknown[],
  strings: readonly string[],
): FastCheck.Arbitrary<ConfigCase> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.nat({ max: validConfigs.length - 1 }).chain((index) => {
        const paths = pathsOf(validConfigs[index]);
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
}

/** A written configuration case: how it shows in a counterexample, and whether a rejection must name a field. */
export interface WrittenConfigCase {
  /** The text (shortened), or a description of the bytes. */
  readonly shown: string;
  /** Every applied change was below the top level (or added a key): a rejection names a field. */
  readonly fieldExpected: boolean;
}

/** Writes `input` to `file` (a mutated case derived from `validConfigs[input.base]`). */
export function writeConfigCase(
  file: string,
  input: ConfigCase,
  validConfigs: readonly unknown[],
): WrittenConfigCase {
  if (input.kind === 'mutated') {
    const { value, applied } = mutate(validConfigs[input.base], input.mutations);
    const text = JSON.stringify(value, null, input.pretty ? 2 : undefined) ?? 'null';
    writeFileSync(file, text);
    return {
      fieldExpected: applied.length > 0 && applied.every((m) => m.path.length > 0 || m.op === 'add-key'),
      shown: text.length > 600 ? `${text.slice(0, 600)}…(${text.length} characters)` : text,
    };
  }
  if (input.kind === 'raw') {
    writeFileSync(file, input.text);
    return { fieldExpected: false, shown: input.text.slice(0, 300) };
  }
  if (input.kind === 'bytes') {
    writeFileSync(file, input.bytes);
    return { fieldExpected: false, shown: Buffer.from(input.bytes).toString('latin1') };
  }
  const fd = openSync(file, 'w');
  ftruncateSync(fd, 5 * 1024 * 1024);
  closeSync(fd);
  return { fieldExpected: false, shown: '5 MiB of NUL bytes' };
}
