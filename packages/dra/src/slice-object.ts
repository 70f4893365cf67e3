/** The collection path of `resource.k8s.io/v1` ResourceSlices. */
export const SLICES_PATH = '/apis/resource.k8s.io/v1/resourceslices';

/** The `resource.k8s.io/v1` ResourceSlice fields the publisher reads and writes. */
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

/** The path of one slice. */
export function slicePath(name: string): string {
  return `${SLICES_PATH}/${encodeURIComponent(name)}`;
}
