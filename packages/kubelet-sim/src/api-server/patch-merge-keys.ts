/*
 * The lists a strategic merge patch (and server-side apply) merges instead of replacing, after the
 * `patchStrategy:"merge"` / `patchMergeKey` tags of the upstream Go types: by the key field named, or as a set
 * of scalars (`''`). Paths are dotted without indices; every other list is atomic (replaced whole). The
 * resource.k8s.io/v1 types declare no merge lists.
 */

const metadataLists: Readonly<Record<string, string>> = {
  'metadata.finalizers': '',
  'metadata.ownerReferences': 'uid',
};

const containerLists = (at: string): Record<string, string> => ({
  [at]: 'name',
  [`${at}.env`]: 'name',
  [`${at}.ports`]: 'containerPort',
  [`${at}.volumeMounts`]: 'mountPath',
  [`${at}.volumeDevices`]: 'devicePath',
});

/** The merge key of each merged list, by plural resource name and dotted path (`''`: a list of scalars). */
export const patchMergeKeys: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  pods: {
    ...metadataLists,
    ...containerLists('spec.containers'),
    ...containerLists('spec.initContainers'),
    ...containerLists('spec.ephemeralContainers'),
    'spec.volumes': 'name',
    'spec.imagePullSecrets': 'name',
    'spec.hostAliases': 'ip',
    'spec.resourceClaims': 'name',
    'spec.topologySpreadConstraints': 'topologyKey',
    'status.conditions': 'type',
    'status.podIPs': 'ip',
  },
  nodes: {
    ...metadataLists,
    'spec.podCIDRs': '',
    'status.conditions': 'type',
    'status.addresses': 'type',
  },
};

/** The merge key of the list at `path` in `resource` (`''` for scalars), or `undefined` when it is atomic. */
export const mergeKeyAt = (resource: string, path: string): string | undefined =>
  patchMergeKeys[resource]?.[path] ?? metadataLists[path];
