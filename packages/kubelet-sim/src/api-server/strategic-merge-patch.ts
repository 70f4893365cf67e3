import { badRequest } from './api-errors';
import { mergeKeyAt } from './patch-merge-keys';

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

/** Orders `list` as `order` lists keys (or scalars); elements it does not name keep their place after. */
function reorder(list: Json[], order: Json[], key: string): Json[] {
  const id = (v: Json): string => JSON.stringify(key === '' ? v : isObject(v) ? v[key] : v);
  const rank = new Map(order.map((v, i) => [id(v), i]));
  const ranked = list
    .filter((v) => rank.has(id(v)))
    .sort((a, b) => (rank.get(id(a)) ?? 0) - (rank.get(id(b)) ?? 0));
  return [...ranked, ...list.filter((v) => !rank.has(id(v)))];
}

function mergeList(resource: string, path: string, live: Json, patch: Json[], key: string): Json[] {
  if (patch.some((v) => isObject(v) && v['$patch'] === 'replace')) {
    return patch.filter((v) => !(isObject(v) && v['$patch'] === 'replace'));
  }
  const out = Array.isArray(live) ? [...live] : [];
  for (const item of patch) {
    if (key === '') {
      if (!out.some((v) => JSON.stringify(v) === JSON.stringify(item))) out.push(item);
      continue;
    }
    if (!isObject(item)) throw badRequest(`unable to find api field in struct for the list at ${path}`);
    const at = out.findIndex((v) => isObject(v) && JSON.stringify(v[key]) === JSON.stringify(item[key]));
    if (item['$patch'] === 'delete') {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) out[at] = merge(resource, path, out[at], item);
    else out.push(merge(resource, path, undefined, item));
  }
  return out;
}

function merge(resource: string, path: string, live: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  if (patch['$patch'] === 'delete') return undefined;
  const replace = patch['$patch'] === 'replace';
  const out: JsonObject = isObject(live) && !replace ? { ...live } : {};
  const orders: Array<[string, Json[]]> = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch') continue;
    if (key === '$retainKeys') {
      const keep = new Set(Array.isArray(value) ? value.map(String) : []);
      for (const k of Object.keys(out)) if (!keep.has(k) && !(k in patch)) delete out[k];
    } else if (key.startsWith('$setElementOrder/')) {
      orders.push([key.slice('$setElementOrder/'.length), Array.isArray(value) ? value : []]);
    } else if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const gone = new Set((Array.isArray(value) ? value : []).map((v) => JSON.stringify(v)));
      const list = out[field];
      if (Array.isArray(list)) out[field] = list.filter((v) => !gone.has(JSON.stringify(v)));
    } else if (value === null) delete out[key];
    else {
      const childPath = join(path, key);
      const mergeKey = Array.isArray(value) ? mergeKeyAt(resource, childPath) : undefined;
      const merged =
        Array.isArray(value) && mergeKey !== undefined
          ? mergeList(resource, childPath, out[key], value, mergeKey)
          : merge(resource, childPath, out[key], value);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    }
  }
  for (const [field, order] of orders) {
    const list = out[field];
    if (Array.isArray(list)) out[field] = reorder(list, order, mergeKeyAt(resource, join(path, field)) ?? '');
  }
  return out;
}

/**
 * Applies a strategic merge patch to `live` (an object of `resource`): a JSON merge patch, except that the
 * lists the upstream types tag `patchStrategy: merge` are merged by their key, and the directives `$patch`
 * (`replace`, `delete`, `merge`), `$retainKeys`, `$setElementOrder/…` and `$deleteFromPrimitiveList/…` act.
 */
export function strategicMergePatch(resource: string, live: Json, patch: Json): Json {
  if (!isObject(patch)) throw badRequest('a strategic merge patch must be a JSON object');
  return merge(resource, '', live, patch);
}
