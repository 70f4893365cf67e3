/**
 * The merge keys of the strategic-merge lists a pod template holds (from the Kubernetes API's
 * `x-kubernetes-patch-merge-key`); any other list is replaced as a whole, as kustomize does for lists without one.
 */
const mergeKeys: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  volumes: 'name',
  env: 'name',
  volumeMounts: 'mountPath',
  ports: 'containerPort',
  imagePullSecrets: 'name',
};

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mergeList(key: string, target: unknown[], patch: unknown[]): unknown[] {
  const mergeKey = mergeKeys[key];
  if (mergeKey === undefined) return structuredClone(patch);
  const result = structuredClone(target);
  for (const item of patch) {
    if (!isMapping(item)) return structuredClone(patch);
    const index = result.findIndex(
      (existing) => isMapping(existing) && existing[mergeKey] === item[mergeKey],
    );
    if (index < 0) result.push(structuredClone(item));
    else result[index] = strategicMerge(result[index], item);
  }
  return result;
}

/**
 * A strategic merge of `patch` into `target` (a new value): mappings merge key by key, `null` deletes a key,
 * lists with a merge key (containers by name, volumeMounts by mountPath, …) merge item by item, other lists and
 * scalars are replaced. No `$patch` directives.
 */
export function strategicMerge(target: unknown, patch: unknown, key = ''): unknown {
  if (Array.isArray(patch) && Array.isArray(target)) return mergeList(key, target, patch);
  if (!isMapping(patch) || !isMapping(target)) return structuredClone(patch);
  const result: Record<string, unknown> = structuredClone(target);
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else result[name] = name in result ? strategicMerge(result[name], value, name) : structuredClone(value);
  }
  return result;
}
