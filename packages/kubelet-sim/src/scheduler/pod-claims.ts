import type { ObjectStore } from '../api-server/object-store';
import { owningPod } from './claim-controller';
import type { DeviceClass, ResourceClaim } from './dra-types';
import type { Pod } from './pod-types';

/** The most consumers a claim may be reserved for. */
export const reservedForMaxSize = 256;

/** The pod's claims, or why the pod cannot be scheduled yet (PreFilter's message). */
export type PodClaims =
  { readonly ok: true; readonly claims: ResourceClaim[] } | { readonly ok: false; readonly message: string };

/** Whether the claim is reserved for the pod. */
export const reservedForPod = (claim: ResourceClaim, pod: Pod): boolean =>
  (claim.status?.reservedFor ?? []).some((r) => r.resource === 'pods' && r.uid === pod.metadata.uid);

function classProblem(
  claim: ResourceClaim,
  classOf: (name: string) => DeviceClass | undefined,
): string | undefined {
  for (const request of claim.spec.devices?.requests ?? []) {
    const specs =
      (request.firstAvailable ?? []).length > 0
        ? (request.firstAvailable ?? []).map((s) => ({
            name: `${request.name}/${s.name}`,
            cls: s.deviceClassName,
          }))
        : [{ name: request.name, cls: request.exactly?.deviceClassName ?? '' }];
    for (const { name, cls } of specs) {
      if (cls !== '' && classOf(cls) === undefined)
        return `request ${name}: device class ${cls} does not exist`;
    }
  }
  return undefined;
}

/**
 * Resolves a pod's `spec.resourceClaims` as the DynamicResources PreFilter does, with its messages: a template
 * claim not created yet, a missing or deleting claim, a claim of another pod, a claim in use, a missing class.
 */
export function podClaims(
  store: ObjectStore,
  pod: Pod,
  classOf: (name: string) => DeviceClass | undefined,
): PodClaims {
  const namespace = pod.metadata.namespace ?? 'default';
  const podRef = `${namespace}/${pod.metadata.name ?? ''}`;
  const claims: ResourceClaim[] = [];
  for (const entry of pod.spec.resourceClaims ?? []) {
    let name = entry.resourceClaimName;
    const fromTemplate = name === undefined && entry.resourceClaimTemplateName !== undefined;
    if (fromTemplate) {
      const status = (pod.status?.resourceClaimStatuses ?? []).find((s) => s.name === entry.name);
      if (status === undefined)
        return { ok: false, message: `pod "${podRef}": ResourceClaim not created yet` };
      name = status.resourceClaimName;
      if (name === undefined) continue;
    }
    if (name === undefined)
      return {
        ok: false,
        message: `pod "${podRef}", spec.resourceClaim "${entry.name}": none of the supported fields are set`,
      };
    let claim: ResourceClaim;
    try {
      claim = store.get('resourceclaims', name, namespace) as unknown as ResourceClaim;
    } catch {
      return { ok: false, message: `resourceclaim.resource.k8s.io "${name}" not found` };
    }
    if (claim.metadata.deletionTimestamp !== undefined)
      return { ok: false, message: `resourceclaim "${name}" is being deleted` };
    if (fromTemplate && owningPod(claim)?.uid !== pod.metadata.uid)
      return {
        ok: false,
        message: `ResourceClaim ${name} was not created for pod ${podRef} (pod is not owner)`,
      };
    claims.push(claim);
  }
  for (const claim of claims) {
    const allocated = claim.status?.allocation !== undefined;
    if (
      allocated &&
      (claim.status?.reservedFor ?? []).length >= reservedForMaxSize &&
      !reservedForPod(claim, pod)
    )
      return { ok: false, message: 'resourceclaim in use' };
    const problem = allocated ? undefined : classProblem(claim, classOf);
    if (problem !== undefined) return { ok: false, message: problem };
  }
  return { ok: true, claims };
}
