import type { KubeObject } from '../api-server/resource-types';

/** A container's claim reference: `resources.claims[]`. */
export interface ContainerClaimRef {
  /** The pod claim (`spec.resourceClaims[].name`). */
  readonly name: string;
  /** The request (or `main` of a prioritized list) whose devices the container gets; absent: every device. */
  readonly request?: string;
}

/** The fields of a core/v1 Pod the playground's kubelet reads and writes. */
export interface PodObject extends KubeObject {
  spec?: {
    nodeName?: string;
    resourceClaims?: Array<{
      name: string;
      resourceClaimName?: string;
      resourceClaimTemplateName?: string;
    }>;
    containers?: Array<{
      name: string;
      image?: string;
      resources?: { claims?: ContainerClaimRef[] };
    }>;
  };
  status?: {
    phase?: string;
    conditions?: PodCondition[];
    resourceClaimStatuses?: Array<{ name: string; resourceClaimName?: string }>;
    [key: string]: unknown;
  };
}

/** A pod condition. */
export interface PodCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
  readonly lastProbeTime?: string | null;
}

/** `namespace/name` of a pod. */
export const podRef = (pod: PodObject): string =>
  `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;

/**
 * The ResourceClaim name of each `spec.resourceClaims[]` entry, as upstream's `resourceclaim.Name`: the
 * `resourceClaimName`, or for a template the name in `status.resourceClaimStatuses` (null: no claim needed);
 * throws when a template's claim is not created yet.
 */
export function podClaimNames(pod: PodObject): Map<string, string | null> {
  const names = new Map<string, string | null>();
  for (const claim of pod.spec?.resourceClaims ?? []) {
    if (claim.resourceClaimName !== undefined) {
      names.set(claim.name, claim.resourceClaimName);
      continue;
    }
    if (claim.resourceClaimTemplateName === undefined) {
      throw new Error(`pod "${podRef(pod)}", spec.resourceClaim ${claim.name}: unsupported source`);
    }
    const status = (pod.status?.resourceClaimStatuses ?? []).find((s) => s.name === claim.name);
    if (status === undefined) throw new Error(`pod "${podRef(pod)}": ResourceClaim not created yet`);
    names.set(claim.name, status.resourceClaimName ?? null);
  }
  return names;
}
