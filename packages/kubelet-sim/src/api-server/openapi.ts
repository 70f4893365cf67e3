import { resourceTypes, type ResourceType } from './resource-types';

/*
 * OpenAPI v3 as far as kubectl reads it: the root lists one document per group version, and each document's
 * paths carry, per kind, a PATCH operation with the `fieldValidation` query parameter (so kubectl leaves
 * validation to the server and sends `fieldValidation=Strict`) and the patch media types the server accepts.
 * Strategic merge patch is not listed, so client-side apply computes it from kubectl's compiled-in types.
 * There are no component schemas (`kubectl explain` has nothing to show).
 */

const patchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

/** The OpenAPI path key of a group version: `api/v1`, `apis/resource.k8s.io/v1`. */
const pathKey = (group: string, version: string): string =>
  group === '' ? `api/${version}` : `apis/${group}/${version}`;

function kindPaths(type: ResourceType, version: string): Record<string, unknown> {
  const gvk = { group: type.group, version, kind: type.kind };
  const scope = type.namespaced ? 'namespaces/{namespace}/' : '';
  const param = (name: string): unknown => ({
    name,
    in: 'query',
    schema: { type: 'string', uniqueItems: true },
  });
  const patch = {
    operationId: `patch${type.kind}`,
    'x-kubernetes-action': 'patch',
    'x-kubernetes-group-version-kind': gvk,
    parameters: [param('dryRun'), param('fieldManager'), param('fieldValidation'), param('force')],
    requestBody: {
      content: Object.fromEntries(patchTypes.map((t) => [t, { schema: { type: 'object' } }])),
      required: true,
    },
    responses: { '200': { description: 'OK' } },
  };
  const post = {
    operationId: `create${type.kind}`,
    'x-kubernetes-action': 'post',
    'x-kubernetes-group-version-kind': gvk,
    parameters: [param('dryRun'), param('fieldManager'), param('fieldValidation')],
    responses: { '201': { description: 'Created' } },
  };
  const base = `/${pathKey(type.group, version)}/${scope}${type.plural}`;
  const paths: Record<string, unknown> = { [base]: { post }, [`${base}/{name}`]: { patch } };
  if (type.statusSubresource) {
    paths[`${base}/{name}/status`] = { patch: { ...patch, operationId: `patch${type.kind}Status` } };
  }
  return paths;
}

/** The served group versions: core `v1` and each served resource.k8s.io version. */
export interface OpenApiVersions {
  readonly resourceVersions: readonly string[];
}

/** The body of a GET on `/openapi/v3` or `/openapi/v3/<group version path>`, or `undefined` for another path. */
export function openApiDocument(path: string, served: OpenApiVersions): unknown {
  const groupVersions: Array<{ group: string; version: string }> = [
    { group: '', version: 'v1' },
    ...served.resourceVersions.map((version) => ({ group: 'resource.k8s.io', version })),
    { group: 'admissionregistration.k8s.io', version: 'v1' },
  ];
  if (path === '/openapi/v3') {
    return {
      paths: Object.fromEntries(
        groupVersions.map(({ group, version }) => [
          pathKey(group, version),
          { serverRelativeURL: `/openapi/v3/${pathKey(group, version)}` },
        ]),
      ),
    };
  }
  const gv = groupVersions.find(({ group, version }) => path === `/openapi/v3/${pathKey(group, version)}`);
  if (gv === undefined) return undefined;
  const paths = Object.values(resourceTypes)
    .filter((type) => type.group === gv.group)
    .reduce<Record<string, unknown>>((all, type) => ({ ...all, ...kindPaths(type, gv.version) }), {});
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.35.0-kubelet-sim' },
    paths,
    components: { schemas: {} },
  };
}
