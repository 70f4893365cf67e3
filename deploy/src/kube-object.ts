/** A Kubernetes object as found in a manifest: apiVersion, kind, metadata and anything else. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

/** Kinds without a namespace among those a kustomization here may hold. */
const clusterScoped = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PriorityClass',
  'StorageClass',
  'RuntimeClass',
  'PersistentVolume',
  'Node',
  'DeviceClass',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
]);

/** Whether objects of this kind live in a namespace. */
function isNamespaced(kind: string): boolean {
  return !clusterScoped.has(kind);
}

/** The API group of an apiVersion (`apps/v1` → `apps`, `v1` → ``). */
function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** kustomize's identity of an object: group, kind, namespace and name (the version does not count). */
export function objectId(object: KubeObject): string {
  const namespace = isNamespaced(object.kind) ? (object.metadata.namespace ?? '') : '';
  return `${apiGroup(object.apiVersion)}/${object.kind}/${namespace}/${object.metadata.name}`;
}

/** Checks that a parsed YAML document is an object with apiVersion, kind and metadata.name. */
export function asKubeObject(value: unknown, where: string): KubeObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${where}: not a Kubernetes object (expected a mapping)`);
  }
  const object = value as Partial<KubeObject>;
  if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') {
    throw new Error(`${where}: apiVersion and kind are required`);
  }
  if (
    typeof object.metadata !== 'object' ||
    object.metadata === null ||
    typeof object.metadata.name !== 'string'
  ) {
    throw new Error(`${where}: metadata.name is required (${object.kind})`);
  }
  return object as KubeObject;
}
