/*
 * The fields each served kind declares, after the upstream Go types (core/v1, resource.k8s.io/v1 of
 * Kubernetes 1.35): what strict field validation checks and what decoding keeps. A `'*'` key is a map's value
 * shape; `any` is a value not looked into (scalars, free-form maps, fields kubelet-sim does not model).
 */

/** The declared shape of a field: `any`, an object's fields, or a list of one shape. */
export type FieldShape = 'any' | { readonly [field: string]: FieldShape } | readonly [FieldShape];

const fields = (names: string): Record<string, FieldShape> =>
  Object.fromEntries(names.split(/\s+/).map((n) => [n, 'any']));

const objectMeta: FieldShape = {
  ...fields(
    'annotations creationTimestamp deletionGracePeriodSeconds deletionTimestamp finalizers generateName generation labels name namespace resourceVersion selfLink uid',
  ),
  managedFields: [fields('apiVersion fieldsType fieldsV1 manager operation subresource time')],
  ownerReferences: [fields('apiVersion blockOwnerDeletion controller kind name uid')],
};

const selectors: FieldShape = [{ cel: fields('expression') }];
const toleration: FieldShape = fields('effect key operator tolerationSeconds value');
/** An `exactly` request's fields. */
const exactRequest: Record<string, FieldShape> = {
  ...fields('deviceClassName allocationMode count adminAccess'),
  selectors,
  tolerations: [toleration],
  capacity: fields('requests'),
};
/** A subrequest (`firstAvailable[]`): a name, and an exact request's fields but `adminAccess`. */
const { adminAccess: _noAdminAccess, ...subrequestFields } = exactRequest;
const subrequest: Record<string, FieldShape> = { name: 'any', ...subrequestFields };
const opaque: Record<string, FieldShape> = { opaque: fields('driver parameters') };

/** A resource.k8s.io/v1 `ResourceClaimSpec`. */
const claimSpec: FieldShape = {
  devices: {
    requests: [
      {
        name: 'any',
        exactly: exactRequest,
        firstAvailable: [subrequest],
      },
    ],
    constraints: [fields('requests matchAttribute distinctAttribute')],
    config: [{ requests: 'any', ...opaque }],
  },
};

const device: FieldShape = {
  ...fields(
    'name attributes capacity nodeName nodeSelector allNodes bindsToNode bindingConditions bindingFailureConditions allowMultipleAllocations',
  ),
  consumesCounters: [fields('counterSet counters')],
  taints: [fields('key value effect timeAdded')],
};

const container: FieldShape = {
  ...fields(
    'args command envFrom image imagePullPolicy lifecycle livenessProbe readinessProbe resizePolicy restartPolicy restartPolicyRules securityContext startupProbe stdin stdinOnce terminationMessagePath terminationMessagePolicy tty volumeDevices workingDir',
  ),
  name: 'any',
  env: [fields('name value valueFrom')],
  ports: [fields('containerPort hostIP hostPort name protocol')],
  volumeMounts: [fields('mountPath mountPropagation name readOnly recursiveReadOnly subPath subPathExpr')],
  resources: { ...fields('limits requests'), claims: [fields('name request')] },
};

const podSpec: FieldShape = {
  ...fields(
    'activeDeadlineSeconds affinity automountServiceAccountToken dnsConfig dnsPolicy enableServiceLinks ephemeralContainers hostAliases hostIPC hostNetwork hostPID hostUsers hostname hostnameOverride imagePullSecrets nodeName nodeSelector os overhead preemptionPolicy priority priorityClassName readinessGates resources restartPolicy runtimeClassName schedulerName schedulingGates securityContext serviceAccount serviceAccountName setHostnameAsFQDN shareProcessNamespace subdomain terminationGracePeriodSeconds topologySpreadConstraints volumes workloadRef',
  ),
  containers: [container],
  initContainers: [container],
  tolerations: [toleration],
  resourceClaims: [fields('name resourceClaimName resourceClaimTemplateName')],
};

const top = (spec: FieldShape, extra: Record<string, FieldShape> = {}): FieldShape => ({
  ...fields('apiVersion kind'),
  metadata: objectMeta,
  spec,
  ...extra,
});

/** The declared fields of each served kind, by plural resource name. */
export const fieldSchemas: Readonly<Record<string, FieldShape>> = {
  resourceslices: top({
    ...fields('driver nodeName nodeSelector allNodes perDeviceNodeSelection'),
    pool: fields('name generation resourceSliceCount'),
    devices: [device],
    sharedCounters: [fields('name counters')],
  }),
  resourceclaims: top(claimSpec, { status: 'any' }),
  resourceclaimtemplates: top({ metadata: objectMeta, spec: claimSpec }),
  deviceclasses: top({
    ...fields('extendedResourceName'),
    selectors,
    config: [opaque],
  }),
  pods: top(podSpec, { status: 'any' }),
  nodes: top(
    {
      ...fields('configSource externalID podCIDR podCIDRs providerID unschedulable'),
      taints: [fields('effect key timeAdded value')],
    },
    { status: 'any' },
  ),
  events: {
    ...fields(
      'apiVersion kind action count eventTime firstTimestamp lastTimestamp message reason related reportingComponent reportingInstance series source type',
    ),
    metadata: objectMeta,
    involvedObject: fields('apiVersion fieldPath kind name namespace resourceVersion uid'),
  },
};

/**
 * Removes the fields `shape` does not declare from `value` (in place), returning their paths as upstream's
 * strict decoding names them (`spec.containers[0].imagee`).
 */
export function pruneUnknownFields(value: unknown, shape: FieldShape, path = ''): string[] {
  if (shape === 'any' || value === null || typeof value !== 'object') return [];
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [];
    return value.flatMap((item, i) => pruneUnknownFields(item, shape[0] as FieldShape, `${path}[${i}]`));
  }
  if (Array.isArray(value)) return [];
  const record = value as Record<string, unknown>;
  const known = shape as Readonly<Record<string, FieldShape>>;
  const unknown: string[] = [];
  for (const key of Object.keys(record)) {
    const child = known[key] ?? known['*'];
    const childPath = path === '' ? key : `${path}.${key}`;
    if (child === undefined) {
      unknown.push(childPath);
      delete record[key];
    } else unknown.push(...pruneUnknownFields(record[key], child, childPath));
  }
  return unknown;
}
