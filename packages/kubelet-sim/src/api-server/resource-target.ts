import { resourceTypes, type ResourceType } from './object-store';
import type { ResourceApiVersion } from './resource-version-conversion';

/** The group of the DRA resources the API server serves. */
export const resourceGroup = 'resource.k8s.io';
/** The version of {@link resourceGroup} the API server stores (and serves by default). */
export const resourceGroupVersion = 'v1';

/** The group of the admission policies the API server serves (`v1` only). */
export const admissionGroup = 'admissionregistration.k8s.io';

/** The parsed target of a resource request. */
export interface ResourceTarget {
  readonly type: ResourceType;
  /** The version in the path (`v1` for core, the served resource.k8s.io version otherwise). */
  readonly version: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

/** Parses the path after the group version (`[namespaces/<ns>/]<plural>[/<name>[/<subresource>]]`). */
function parseTarget(segments: readonly string[], version: string): ResourceTarget | undefined {
  let rest = segments;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource, ...extra] = rest;
  const type = plural === undefined ? undefined : resourceTypes[plural];
  if (type === undefined || extra.length > 0) return undefined;
  if (namespace !== undefined && !type.namespaced) return undefined;
  // A namespaced resource without a namespace can only be listed or watched (across namespaces).
  if (type.namespaced && namespace === undefined && name !== undefined) return undefined;
  if (subresource !== undefined && !(subresource === 'status' && type.statusSubresource)) return undefined;
  return {
    type,
    version,
    ...(namespace === undefined ? {} : { namespace }),
    ...(name === undefined ? {} : { name: decodeURIComponent(name) }),
    ...(subresource === undefined ? {} : { subresource }),
  };
}

/**
 * The resource a request path (split on `/`) names, under `/api/v1` or `/apis/resource.k8s.io/<version>` for
 * a `served` version.
 */
export function resolveResourceTarget(
  segments: readonly string[],
  served: readonly ResourceApiVersion[] = [resourceGroupVersion],
): ResourceTarget | undefined {
  let target: ResourceTarget | undefined;
  const version = segments[2] as ResourceApiVersion;
  if (segments[0] === 'api' && segments[1] === 'v1') target = parseTarget(segments.slice(2), 'v1');
  else if (segments[0] === 'apis' && segments[1] === resourceGroup && served.includes(version))
    target = parseTarget(segments.slice(3), version);
  else if (segments[0] === 'apis' && segments[1] === admissionGroup && segments[2] === 'v1')
    target = parseTarget(segments.slice(3), 'v1');
  if (target === undefined || target.type.group !== (segments[0] === 'api' ? '' : segments[1])) {
    return undefined;
  }
  return target;
}
