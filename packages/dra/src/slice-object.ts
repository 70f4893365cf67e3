import type { ResourceApiVersion } from './resource-api-discovery';

/** The collection path of ResourceSlices in `version`. */
export function slicesPath(version: ResourceApiVersion): string {
  return `/apis/resource.k8s.io/${version}/resourceslices`;
}

/** The ResourceSlice fields the publisher reads and writes, in the internal `resource.k8s.io/v1` shape. */
export interface SliceObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    resourceVersion?: string;
    ownerReferences?: { uid?: string; kind?: string }[];
    [key: string]: unknown;
  };
  spec: {
    driver?: string;
    nodeName?: string;
    pool?: { name?: string; generation?: number; resourceSliceCount?: number };
    devices?: unknown[];
    [key: string]: unknown;
  };
}

/** `value` as a ResourceSlice when it has a name and a spec; else undefined. */
export function asSlice(value: unknown): SliceObject | undefined {
  const object = value as Partial<SliceObject> | null;
  if (typeof object?.metadata?.name !== 'string' || typeof object.spec !== 'object') return undefined;
  return object as SliceObject;
}

/** The path of one slice in `version`. */
export function slicePath(version: ResourceApiVersion, name: string): string {
  return `${slicesPath(version)}/${encodeURIComponent(name)}`;
}
