import type { KubeObject, ResourceType } from './resource-types';
import { parseFieldSelector, parseLabelSelector } from './selectors';

/** Which objects a list, watch or deletecollection selects. */
export interface ListOptions {
  readonly namespace?: string;
  readonly fieldSelector?: string | null;
  readonly labelSelector?: string | null;
}

/** The test of which objects of `type` a list, watch or deletecollection with `options` selects. */
export function listMatcher(type: ResourceType, options: ListOptions): (o: KubeObject) => boolean {
  const fieldNames = [
    'metadata.name',
    ...(type.namespaced ? ['metadata.namespace'] : []),
    ...Object.keys(type.fields),
  ];
  const fields = parseFieldSelector(options.fieldSelector ?? null, fieldNames);
  const labels = parseLabelSelector(options.labelSelector ?? null);
  return (o) =>
    (options.namespace === undefined || o.metadata.namespace === options.namespace) &&
    fields((key) =>
      key === 'metadata.name'
        ? o.metadata.name
        : key === 'metadata.namespace'
          ? o.metadata.namespace
          : type.fields[key]?.(o),
    ) &&
    labels((key) => o.metadata.labels?.[key]);
}
