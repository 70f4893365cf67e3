import type { StatusCause } from './api-errors';
import { validateEvent, validatePod } from './pod-validation';
import { podCreateStatus } from './pod-create-status';
import {
  validateDeviceClass,
  validateNode,
  validateResourceClaim,
  validateResourceClaimStatus,
  validateResourceClaimTemplate,
  validateResourceSlice,
  type ValidationContext,
} from './validation';
import { validateAdmissionPolicy, validateAdmissionPolicyBinding } from './admission-policy-validation';

export type { ValidationContext } from './validation';
export type { KubeObject } from './kube-object';
import type { KubeObject } from './kube-object';

/** A resource the API server serves. */
export interface ResourceType {
  readonly plural: string;
  readonly singular: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** Fields usable in `fieldSelector` besides `metadata.name` (and `metadata.namespace` when namespaced). */
  readonly fields: Readonly<Record<string, (o: KubeObject) => string | undefined>>;
  /** Whether a `status` subresource exists (then PUT on the object keeps the old status). */
  readonly statusSubresource: boolean;
  validate(object: KubeObject, old?: KubeObject, context?: ValidationContext): StatusCause[];
  /** The status a new object starts with (after the client's is dropped), as the real API server sets it. */
  createStatus?(object: KubeObject): Record<string, unknown>;
  validateStatus?(object: KubeObject, old: KubeObject): StatusCause[];
}

const spec = (o: KubeObject): Record<string, unknown> =>
  typeof o['spec'] === 'object' && o['spec'] !== null ? (o['spec'] as Record<string, unknown>) : {};
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const field = (o: KubeObject, ...path: string[]): string | undefined => {
  let at: unknown = o;
  for (const key of path)
    at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  return str(at);
};

/** The resources kubelet-sim's API server serves, by plural name. */
export const resourceTypes: Readonly<Record<string, ResourceType>> = {
  resourceslices: {
    plural: 'resourceslices',
    singular: 'resourceslice',
    group: 'resource.k8s.io',
    version: 'v1',
    kind: 'ResourceSlice',
    namespaced: false,
    fields: {
      'spec.nodeName': (o) => str(spec(o)['nodeName']) ?? '',
      'spec.driver': (o) => str(spec(o)['driver']) ?? '',
    },
    statusSubresource: false,
    validate: (o, old) => validateResourceSlice(o, old),
  },
  resourceclaims: {
    plural: 'resourceclaims',
    singular: 'resourceclaim',
    group: 'resource.k8s.io',
    version: 'v1',
    kind: 'ResourceClaim',
    namespaced: true,
    fields: {},
    statusSubresource: true,
    validate: (o, old, context) => validateResourceClaim(o, old, context),
    validateStatus: (o) => validateResourceClaimStatus(o),
  },
  deviceclasses: {
    plural: 'deviceclasses',
    singular: 'deviceclass',
    group: 'resource.k8s.io',
    version: 'v1',
    kind: 'DeviceClass',
    namespaced: false,
    fields: {},
    statusSubresource: false,
    validate: (o, _old, context) => validateDeviceClass(o, context),
  },
  resourceclaimtemplates: {
    plural: 'resourceclaimtemplates',
    singular: 'resourceclaimtemplate',
    group: 'resource.k8s.io',
    version: 'v1',
    kind: 'ResourceClaimTemplate',
    namespaced: true,
    fields: {},
    statusSubresource: false,
    validate: (o, _old, context) => validateResourceClaimTemplate(o, context),
  },
  pods: {
    plural: 'pods',
    singular: 'pod',
    group: '',
    version: 'v1',
    kind: 'Pod',
    namespaced: true,
    fields: {
      'spec.nodeName': (o) => str(spec(o)['nodeName']) ?? '',
      'status.phase': (o) => field(o, 'status', 'phase') ?? '',
    },
    statusSubresource: true,
    validate: (o) => validatePod(o),
    createStatus: (o) => podCreateStatus(o),
  },
  events: {
    plural: 'events',
    singular: 'event',
    group: '',
    version: 'v1',
    kind: 'Event',
    namespaced: true,
    fields: {
      'involvedObject.kind': (o) => field(o, 'involvedObject', 'kind') ?? '',
      'involvedObject.name': (o) => field(o, 'involvedObject', 'name') ?? '',
      'involvedObject.namespace': (o) => field(o, 'involvedObject', 'namespace') ?? '',
      'involvedObject.uid': (o) => field(o, 'involvedObject', 'uid') ?? '',
      reason: (o) => str(o['reason']) ?? '',
      type: (o) => str(o['type']) ?? '',
    },
    statusSubresource: false,
    validate: (o) => validateEvent(o),
  },
  validatingadmissionpolicies: {
    plural: 'validatingadmissionpolicies',
    singular: 'validatingadmissionpolicy',
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingAdmissionPolicy',
    namespaced: false,
    fields: {},
    statusSubresource: false,
    validate: (o) => validateAdmissionPolicy(o),
  },
  validatingadmissionpolicybindings: {
    plural: 'validatingadmissionpolicybindings',
    singular: 'validatingadmissionpolicybinding',
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    namespaced: false,
    fields: {},
    statusSubresource: false,
    validate: (o) => validateAdmissionPolicyBinding(o),
  },
  nodes: {
    plural: 'nodes',
    singular: 'node',
    group: '',
    version: 'v1',
    kind: 'Node',
    namespaced: false,
    fields: { 'spec.unschedulable': (o) => String(spec(o)['unschedulable'] === true) },
    statusSubresource: false,
    validate: (o) => validateNode(o),
  },
};
