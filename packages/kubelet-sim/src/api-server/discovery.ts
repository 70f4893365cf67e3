import { resourceTypes, type ResourceType } from './object-store';
import { admissionGroup, resourceGroup, resourceGroupVersion } from './resource-target';
import type { ResourceApiVersion } from './resource-version-conversion';

const verbsOf = (type: ResourceType): string[] =>
  type.plural === 'nodes'
    ? ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']
    : ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function resourceList(groupVersion: string, group: string): unknown {
  const resources: unknown[] = [];
  for (const type of Object.values(resourceTypes)) {
    if (type.group !== group) continue;
    resources.push({
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: verbsOf(type),
    });
    if (type.statusSubresource) {
      resources.push({
        name: `${type.plural}/status`,
        singularName: '',
        namespaced: type.namespaced,
        kind: type.kind,
        verbs: ['get', 'patch', 'update'],
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

const apiGroup = (served: readonly ResourceApiVersion[]): unknown => {
  const versions = served.map((version) => ({ groupVersion: `${resourceGroup}/${version}`, version }));
  return { name: resourceGroup, versions, preferredVersion: versions[0] };
};

const admissionApiGroup = {
  name: admissionGroup,
  versions: [{ groupVersion: `${admissionGroup}/v1`, version: 'v1' }],
  preferredVersion: { groupVersion: `${admissionGroup}/v1`, version: 'v1' },
};

/**
 * The body of a GET on a discovery path (`/version`, `/api`, `/apis`, …), or `undefined` for any other path;
 * `served`: the resource.k8s.io versions, preferred first.
 */
export function discoveryDocument(
  path: string,
  host: string,
  served: readonly ResourceApiVersion[] = [resourceGroupVersion],
): unknown {
  const version = /^\/apis\/resource\.k8s\.io\/([^/]+)$/.exec(path)?.[1] as ResourceApiVersion | undefined;
  if (version !== undefined && served.includes(version)) {
    return resourceList(`${resourceGroup}/${version}`, resourceGroup);
  }
  switch (path) {
    case '/version':
      return {
        major: '1',
        minor: '35',
        gitVersion: 'v1.35.0-kubelet-sim',
        platform: `${process.platform}/${process.arch}`,
      };
    case '/api':
      return {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: host }],
      };
    case '/apis':
      return { kind: 'APIGroupList', apiVersion: 'v1', groups: [apiGroup(served), admissionApiGroup] };
    case `/apis/${admissionGroup}`:
      return { kind: 'APIGroup', apiVersion: 'v1', ...admissionApiGroup };
    case `/apis/${admissionGroup}/v1`:
      return resourceList(`${admissionGroup}/v1`, admissionGroup);
    case `/apis/${resourceGroup}`:
      return { kind: 'APIGroup', apiVersion: 'v1', ...(apiGroup(served) as object) };
    case '/api/v1':
      return resourceList('v1', '');
    default:
      return undefined;
  }
}
