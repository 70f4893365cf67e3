import { createKubeClient, KubeApiError, type KubeApiAccess } from '@kdp/core';
import { toResourceClaim, type ResourceClaim } from './resource-claim';

/** Reads ResourceClaims from the API server; the seam tests replace with a fake. */
export interface ClaimReader {
  /** The claim, or undefined when the API server answers 404; rejects on any other failure. */
  get(namespace: string, name: string): Promise<ResourceClaim | undefined>;
}

/** Options for {@link createKubeClaimReader}. */
export interface KubeClaimReaderOptions {
  /** The API server and credentials (`loadKubeAccess`). */
  readonly access: KubeApiAccess;
  /** Milliseconds one GET may take; default 10 000. */
  readonly timeoutMs?: number | undefined;
}

/**
 * A {@link ClaimReader} that GETs `/apis/resource.k8s.io/v1/namespaces/<ns>/resourceclaims/<name>` over
 * node:https with a bearer token (the service account's in a pod). A 404 is a missing claim; any other status
 * rejects with the API server's message.
 */
export function createKubeClaimReader(options: KubeClaimReaderOptions): ClaimReader {
  const client = createKubeClient({ access: options.access, timeoutMs: options.timeoutMs });
  return {
    async get(namespace, name) {
      const path = `/apis/resource.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/resourceclaims/${encodeURIComponent(name)}`;
      try {
        return toResourceClaim(await client.get(path));
      } catch (error) {
        if (error instanceof KubeApiError && error.status === 404) return undefined;
        throw error;
      }
    },
  };
}
