import type { KubeObject, ObjectStore } from '../api-server/object-store';
import type { ResourceClaim } from './dra-types';
import { type Pod, podIsDone, type ResourceClaimTemplate } from './pod-types';

/** The annotation naming the pod's claim entry on a claim generated from a template. */
export const podClaimNameAnnotation = 'resource.kubernetes.io/pod-claim-name';

const maxBaseLength = 57;

/** `<pod>-<claim>-`, both parts shortened proportionally when too long (as the resourceclaim controller). */
export function generatedClaimPrefix(pod: string, claim: string): string {
  const name = `${pod}-${claim}-`;
  if (name.length <= maxBaseLength) return name;
  return `${pod.slice(0, Math.floor((pod.length * maxBaseLength) / name.length))}-${claim.slice(0, Math.floor((claim.length * maxBaseLength) / name.length))}`;
}

const asObject = <T>(o: T): KubeObject => o as unknown as KubeObject;

/** The pod that controls a claim (ownerReference with controller=true). */
export const owningPod = (claim: ResourceClaim): { name: string; uid: string } | undefined => {
  const ref = (claim.metadata.ownerReferences ?? []).find((r) => r.kind === 'Pod' && r.controller === true);
  return ref?.name === undefined || ref.uid === undefined ? undefined : { name: ref.name, uid: ref.uid };
};

/** Creates the missing claims of a pod's template entries and records them in `status.resourceClaimStatuses`. */
function createTemplateClaims(store: ObjectStore, pod: Pod, claims: readonly ResourceClaim[]): void {
  const namespace = pod.metadata.namespace ?? 'default';
  const statuses = [...(pod.status?.resourceClaimStatuses ?? [])];
  let changed = false;
  for (const entry of pod.spec.resourceClaims ?? []) {
    if (entry.resourceClaimTemplateName === undefined || statuses.some((s) => s.name === entry.name))
      continue;
    const existing = claims.find(
      (c) =>
        c.metadata.namespace === namespace &&
        owningPod(c)?.uid === pod.metadata.uid &&
        c.metadata.annotations?.[podClaimNameAnnotation] === entry.name,
    );
    let claimName = existing?.metadata.name;
    if (claimName === undefined) {
      let template: ResourceClaimTemplate;
      try {
        template = store.get(
          'resourceclaimtemplates',
          entry.resourceClaimTemplateName,
          namespace,
        ) as unknown as ResourceClaimTemplate;
      } catch {
        continue; // The controller retries when the template appears.
      }
      const created = store.create(
        'resourceclaims',
        asObject({
          metadata: {
            generateName: generatedClaimPrefix(pod.metadata.name ?? '', entry.name),
            namespace,
            ownerReferences: [
              {
                apiVersion: 'v1',
                kind: 'Pod',
                name: pod.metadata.name,
                uid: pod.metadata.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
            annotations: {
              ...(template.spec.metadata?.annotations ?? {}),
              [podClaimNameAnnotation]: entry.name,
            },
            ...(template.spec.metadata?.labels === undefined
              ? {}
              : { labels: template.spec.metadata.labels }),
          },
          spec: template.spec.spec,
        }),
        namespace,
      );
      claimName = created.metadata.name;
    }
    statuses.push({ name: entry.name, ...(claimName === undefined ? {} : { resourceClaimName: claimName }) });
    changed = true;
  }
  if (changed) {
    store.update(
      'pods',
      asObject({ ...pod, status: { ...(pod.status ?? {}), resourceClaimStatuses: statuses } }),
      {
        namespace,
        subresource: 'status',
      },
    );
  }
}

/** Drops finished or deleted pods from `reservedFor`; deallocates a claim whose last consumer went away. */
function releaseClaim(store: ObjectStore, claim: ResourceClaim, pods: ReadonlyMap<string, Pod>): void {
  const namespace = claim.metadata.namespace ?? 'default';
  const reserved = claim.status?.reservedFor ?? [];
  const valid = reserved.filter((r) => {
    if (r.resource !== 'pods' || (r.apiGroup ?? '') !== '') return true;
    const pod = pods.get(`${namespace}/${r.name}`);
    return pod !== undefined && pod.metadata.uid === r.uid && !podIsDone(pod);
  });
  const owner = owningPod(claim);
  const ownerPod = owner === undefined ? undefined : pods.get(`${namespace}/${owner.name}`);
  if (
    owner !== undefined &&
    valid.length === 0 &&
    (ownerPod?.metadata.uid !== owner.uid || podIsDone(ownerPod))
  ) {
    // The garbage collector (pod gone) or the controller (pod done) removes a pod's generated claim.
    store.delete('resourceclaims', claim.metadata.name ?? '', {
      namespace,
      preconditions: { uid: claim.metadata.uid ?? '' },
    });
    return;
  }
  if (valid.length === reserved.length) return;
  // Deallocating drops the drivers' device status with the allocation, as upstream's controller does.
  const { allocation, devices, ...status } = claim.status ?? {};
  const next =
    valid.length === 0
      ? status
      : {
          ...status,
          ...(allocation === undefined ? {} : { allocation }),
          ...(devices === undefined ? {} : { devices }),
          reservedFor: valid,
        };
  if (valid.length === 0) delete (next as { reservedFor?: unknown }).reservedFor;
  store.update('resourceclaims', asObject({ ...claim, status: next }), { namespace, subresource: 'status' });
}

/**
 * One pass of the resourceclaim controller over the store: claims from templates for pods (generateName
 * `<pod>-<claim>-`, owned by the pod, annotated with the pod's claim name) recorded in the pod's status;
 * deleted or finished pods dropped from `reservedFor`, the claim deallocated when that leaves it unreserved;
 * generated claims removed with their pod.
 */
export function syncClaimController(store: ObjectStore): void {
  const pods = store.list('pods').items as unknown as Pod[];
  const claims = store.list('resourceclaims').items as unknown as ResourceClaim[];
  for (const pod of pods) {
    if (!podIsDone(pod)) createTemplateClaims(store, pod, claims);
  }
  const byName = new Map(
    pods.map((p) => [`${p.metadata.namespace ?? 'default'}/${p.metadata.name ?? ''}`, p]),
  );
  for (const claim of store.list('resourceclaims').items as unknown as ResourceClaim[])
    releaseClaim(store, claim, byName);
}
