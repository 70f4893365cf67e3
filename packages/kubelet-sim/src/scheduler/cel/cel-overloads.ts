import { type CheckType, T } from './cel-type';

/** One signature of a function or method. */
export interface Overload {
  readonly target?: CheckType;
  readonly args: readonly CheckType[];
  readonly result: CheckType;
}

const { bool, int, uint, double, string, bytes, dyn, semver, quantity } = T;
const fn = (args: CheckType[], result: CheckType): Overload => ({ args, result });
const method = (target: CheckType, args: CheckType[], result: CheckType): Overload => ({
  target,
  args,
  result,
});
const anyList = T.list(dyn);
const anyMap = T.map(dyn, dyn);
const sameTyped = (types: CheckType[], arity: 1 | 2): Overload[] =>
  types.map((t) => fn(arity === 1 ? [t] : [t, t], t));
const comparable = [int, uint, double, string, bytes, bool];
const crossNumeric = [int, uint, double].flatMap((a) => [int, uint, double].map((b) => fn([a, b], bool)));
const ordering = [...crossNumeric, ...[string, bytes, bool].map((t) => fn([t, t], bool))];

/**
 * The signatures the checker knows precisely: operators, the standard functions DRA selectors use, the strings
 * extension and the Kubernetes semver and quantity libraries. Other functions of the evaluator type as dyn.
 */
export const overloads: Readonly<Record<string, readonly Overload[]>> = {
  '_&&_': [fn([bool, bool], bool)],
  '_||_': [fn([bool, bool], bool)],
  '!_': [fn([bool], bool)],
  '@not_strictly_false': [fn([bool], bool)],
  '_<_': ordering,
  '_<=_': ordering,
  '_>_': ordering,
  '_>=_': ordering,
  '_+_': [...sameTyped([int, uint, double, string, bytes], 2), fn([anyList, anyList], anyList)],
  '_-_': sameTyped([int, uint, double], 2),
  '_*_': sameTyped([int, uint, double], 2),
  '_/_': sameTyped([int, uint, double], 2),
  '_%_': sameTyped([int, uint], 2),
  '-_': sameTyped([int, double], 1),
  '@in': [fn([dyn, anyList], bool), fn([dyn, anyMap], bool)],
  size: [string, bytes, anyList, anyMap].flatMap((t) => [fn([t], int), method(t, [], int)]),
  contains: [method(string, [string], bool)],
  startsWith: [method(string, [string], bool)],
  endsWith: [method(string, [string], bool)],
  matches: [method(string, [string], bool), fn([string, string], bool)],
  int: [int, uint, double, string].map((t) => fn([t], int)),
  uint: [int, uint, double, string].map((t) => fn([t], uint)),
  double: [int, uint, double, string].map((t) => fn([t], double)),
  string: comparable.map((t) => fn([t], string)),
  bytes: [fn([string], bytes), fn([bytes], bytes)],
  bool: [fn([bool], bool), fn([string], bool)],
  dyn: [fn([dyn], dyn)],
  type: [fn([dyn], T.type)],
  charAt: [method(string, [int], string)],
  indexOf: [method(string, [string], int), method(string, [string, int], int)],
  lastIndexOf: [method(string, [string], int), method(string, [string, int], int)],
  lowerAscii: [method(string, [], string)],
  upperAscii: [method(string, [], string)],
  replace: [method(string, [string, string], string), method(string, [string, string, int], string)],
  split: [method(string, [string], T.list(string)), method(string, [string, int], T.list(string))],
  substring: [method(string, [int], string), method(string, [int, int], string)],
  trim: [method(string, [], string)],
  join: [method(T.list(string), [], string), method(T.list(string), [string], string)],
  format: [method(string, [anyList], string)],
  'strings.quote': [fn([string], string)],
  semver: [fn([string], semver), fn([string, bool], semver)],
  isSemver: [fn([string], bool), fn([string, bool], bool)],
  major: [method(semver, [], int)],
  minor: [method(semver, [], int)],
  patch: [method(semver, [], int)],
  quantity: [fn([string], quantity)],
  isQuantity: [fn([string], bool)],
  isInteger: [method(quantity, [], bool)],
  asInteger: [method(quantity, [], int)],
  asApproximateFloat: [method(quantity, [], double)],
  sign: [method(quantity, [], int)],
  add: [method(quantity, [quantity], quantity), method(quantity, [int], quantity)],
  sub: [method(quantity, [quantity], quantity), method(quantity, [int], quantity)],
  isGreaterThan: [method(semver, [semver], bool), method(quantity, [quantity], bool)],
  isLessThan: [method(semver, [semver], bool), method(quantity, [quantity], bool)],
  compareTo: [method(semver, [semver], int), method(quantity, [quantity], int)],
};
