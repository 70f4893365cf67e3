import {
  deviceRequestFromV1beta1,
  deviceRequestToV1beta1,
  sliceDeviceFromV1beta1,
  sliceDeviceToV1beta1,
} from '@kdp/api';
import type { KubeObject } from './resource-types';

/*
 * Conversion between the stored resource.k8s.io/v1 objects and the older served versions, after the upstream
 * types (k8s.io/api resource/v1beta1 and v1beta2 of 1.35). v1beta2 has v1's shape for every field kubelet-sim
 * serves; v1beta1 differs in slice devices (`basic`) and claim requests (no `exactly`), converted by @kdp/api.
 */

/** A resource.k8s.io version the API server can serve. */
export type ResourceApiVersion = 'v1' | 'v1beta2' | 'v1beta1';

/** The resource.k8s.io versions, newest first (the preferred one is the first served). */
export const resourceApiVersions: readonly ResourceApiVersion[] = ['v1', 'v1beta2', 'v1beta1'];

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function mapAt(object: Json, path: readonly string[], f: (list: unknown[]) => unknown[]): void {
  let at: unknown = object;
  for (const key of path.slice(0, -1)) at = isObject(at) ? at[key] : undefined;
  const last = path[path.length - 1] ?? '';
  if (isObject(at) && Array.isArray(at[last])) at[last] = f(at[last] as unknown[]);
}

function convertShape(resource: string, object: Json, toV1beta1: boolean): void {
  const requests = toV1beta1 ? deviceRequestToV1beta1 : deviceRequestFromV1beta1;
  if (resource === 'resourceslices') {
    mapAt(object, ['spec', 'devices'], (devices) =>
      devices.map(toV1beta1 ? sliceDeviceToV1beta1 : sliceDeviceFromV1beta1),
    );
  } else if (resource === 'resourceclaims') {
    mapAt(object, ['spec', 'devices', 'requests'], (list) => list.map(requests));
  } else if (resource === 'resourceclaimtemplates') {
    mapAt(object, ['spec', 'spec', 'devices', 'requests'], (list) => list.map(requests));
  }
}

function convert(
  resource: string,
  object: KubeObject,
  version: ResourceApiVersion,
  toStorage: boolean,
): KubeObject {
  if (version === 'v1') return object;
  const out = structuredClone(object);
  out.apiVersion = `resource.k8s.io/${toStorage ? 'v1' : version}`;
  if (version === 'v1beta1') convertShape(resource, out, !toStorage);
  return out;
}

/** A stored (v1) object of `resource` as `version` shows it, `apiVersion` included. */
export const fromStorageVersion = (
  resource: string,
  object: KubeObject,
  version: ResourceApiVersion,
): KubeObject => convert(resource, object, version, false);

/** An object of `resource` sent in `version`, as stored (v1). */
export const toStorageVersion = (
  resource: string,
  object: KubeObject,
  version: ResourceApiVersion,
): KubeObject => convert(resource, object, version, true);
