import type { KubeObject } from './resource-types';
import { mergeKeyAt } from './patch-merge-keys';
import { strategicMergePatch } from './strategic-merge-patch';

/*
 * Server-side apply, reduced to one manager at a time: the applied configuration is merged into the live
 * object (keyed lists by key, other lists replaced), the fields this manager applied last time and no longer
 * applies are removed, and its `managedFields` entry (operation `Apply`, `FieldsV1`) records the new set.
 * Conflicts with other managers are not detected (as if every apply were `--force-conflicts`).
 */

type FieldSet = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** Fields never owned: identity and server-set metadata. */
const unowned = new Set([
  'apiVersion',
  'kind',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'metadata.resourceVersion',
  'metadata.generation',
  'metadata.creationTimestamp',
  'metadata.managedFields',
]);

/** The FieldsV1 set of `value` at `path`: `f:<field>` per object field, `k:{…}` per keyed list element. */
export function fieldSetOf(resource: string, value: unknown, path = ''): FieldSet {
  if (!isObject(value)) return {};
  const set: FieldSet = {};
  for (const [key, child] of Object.entries(value)) {
    const childPath = join(path, key);
    if (unowned.has(childPath)) continue;
    const mergeKey = Array.isArray(child) ? mergeKeyAt(resource, childPath) : undefined;
    if (Array.isArray(child) && mergeKey !== undefined && mergeKey !== '') {
      const items: FieldSet = {};
      for (const item of child) {
        if (!isObject(item)) continue;
        items[`k:${JSON.stringify({ [mergeKey]: item[mergeKey] })}`] = {
          '.': {},
          ...fieldSetOf(resource, item, childPath),
        };
      }
      set[`f:${key}`] = items;
    } else if (Array.isArray(child) && mergeKey === '') {
      set[`f:${key}`] = Object.fromEntries(child.map((v) => [`v:${JSON.stringify(v)}`, {}]));
    } else set[`f:${key}`] = fieldSetOf(resource, child, childPath);
  }
  return set;
}

/** Removes from `live` what `before` holds and `after` does not. */
function removeDropped(
  resource: string,
  live: unknown,
  before: FieldSet,
  after: FieldSet,
  path: string,
): void {
  for (const [entry, childBefore] of Object.entries(before)) {
    if (entry === '.') continue;
    const childAfter = after[entry] as FieldSet | undefined;
    if (entry.startsWith('f:') && isObject(live)) {
      const key = entry.slice(2);
      if (childAfter === undefined) delete live[key];
      else removeDropped(resource, live[key], childBefore as FieldSet, childAfter, join(path, key));
    } else if ((entry.startsWith('k:') || entry.startsWith('v:')) && Array.isArray(live)) {
      const id = JSON.parse(entry.slice(2)) as unknown;
      const at = live.findIndex((item) =>
        entry.startsWith('v:')
          ? JSON.stringify(item) === JSON.stringify(id)
          : isObject(item) && isObject(id) && Object.entries(id).every(([k, v]) => item[k] === v),
      );
      if (at < 0) continue;
      if (childAfter === undefined) live.splice(at, 1);
      else removeDropped(resource, live[at], childBefore as FieldSet, childAfter, path);
    }
  }
}

/** One `managedFields` entry. */
interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldSet;
  subresource?: string;
}

/**
 * The object that applying `applied` for `manager` makes of `live` (`undefined`: the object is new), with its
 * `managedFields` entry for `manager` set; `now` stamps it.
 */
export function serverSideApply(
  resource: string,
  live: KubeObject | undefined,
  applied: KubeObject,
  manager: string,
  now: string,
): KubeObject {
  const fields = fieldSetOf(resource, applied);
  const entries = ((live?.metadata['managedFields'] ?? []) as ManagedFieldsEntry[]).filter(
    (e) => !(e.manager === manager && e.operation === 'Apply'),
  );
  const previous = ((live?.metadata['managedFields'] ?? []) as ManagedFieldsEntry[]).find(
    (e) => e.manager === manager && e.operation === 'Apply',
  );
  const base: KubeObject = structuredClone(live ?? { metadata: {} });
  if (previous?.fieldsV1 !== undefined) removeDropped(resource, base, previous.fieldsV1, fields, '');
  const { metadata: appliedMeta, ...appliedRest } = structuredClone(applied);
  const { managedFields: _ignored, ...appliedMetaRest } = appliedMeta;
  const merged = strategicMergePatch(resource, base, {
    ...appliedRest,
    metadata: appliedMetaRest,
  }) as KubeObject;
  const entry: ManagedFieldsEntry = {
    manager,
    operation: 'Apply',
    apiVersion: applied.apiVersion ?? live?.apiVersion ?? '',
    time: now,
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
  };
  merged.metadata = { ...merged.metadata, managedFields: [...entries, entry] };
  return merged;
}
