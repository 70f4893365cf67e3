/** A static CEL type, as the selector checker infers it. */
export type CheckType =
  | { readonly k: 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'null_type' | 'dyn' | 'type' }
  | { readonly k: 'kubernetes.Semver' | 'kubernetes.Quantity' | 'kubernetes.DRADevice' }
  | { readonly k: 'list'; readonly e: CheckType }
  | { readonly k: 'map'; readonly key: CheckType; readonly v: CheckType };

const scalar = <K extends CheckType['k']>(k: K): { readonly k: K } => ({ k });

/** The types by name. */
export const T = {
  bool: scalar('bool'),
  int: scalar('int'),
  uint: scalar('uint'),
  double: scalar('double'),
  string: scalar('string'),
  bytes: scalar('bytes'),
  null: scalar('null_type'),
  dyn: scalar('dyn'),
  type: scalar('type'),
  semver: scalar('kubernetes.Semver'),
  quantity: scalar('kubernetes.Quantity'),
  device: scalar('kubernetes.DRADevice'),
  list: (e: CheckType): CheckType => ({ k: 'list', e }),
  map: (key: CheckType, v: CheckType): CheckType => ({ k: 'map', key, v }),
} as const;

/** The type's name as cel-go prints it (`list(int)`, `map(string, dyn)`). */
export function typeName(t: CheckType): string {
  if (t.k === 'list') return `list(${typeName(t.e)})`;
  if (t.k === 'map') return `map(${typeName(t.key)}, ${typeName(t.v)})`;
  return t.k;
}

const numeric = new Set(['int', 'uint', 'double']);

/** Whether a value of type `a` may stand where `b` is expected (dyn fits everything, both ways). */
export function assignable(a: CheckType, b: CheckType): boolean {
  if (a.k === 'dyn' || b.k === 'dyn') return true;
  if (a.k === 'list' && b.k === 'list') return assignable(a.e, b.e);
  if (a.k === 'map' && b.k === 'map') return assignable(a.key, b.key) && assignable(a.v, b.v);
  return a.k === b.k;
}

/** Whether both are (possibly different) numeric types. */
export const bothNumeric = (a: CheckType, b: CheckType): boolean => numeric.has(a.k) && numeric.has(b.k);

/** The common type of two branches, or dyn. */
export function join(a: CheckType, b: CheckType): CheckType {
  if (a.k === 'dyn' || b.k === 'dyn') return T.dyn;
  if (a.k === 'null_type') return b;
  if (b.k === 'null_type') return a;
  return typeName(a) === typeName(b) ? a : T.dyn;
}
