import type { LifecycleLogger } from '@kdp/base';
import { createKubeClient, type KubeApiAccess } from '@kdp/core';
import { fromVersionClaim } from './claim-version';
import {
  createResourceApiDiscovery,
  isNotFound,
  type ResourceApiDiscovery,
  type ResourceApiVersion,
} from './resource-api-discovery';
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
  /** The `resource.k8s.io` version, shared with the slice publisher; default one of its own, logged to `logger`. */
  readonly discovery?: ResourceApiDiscovery | undefined;
  /** Where the reader's own discovery logs the version it chose. */
  readonly logger?: LifecycleLogger | undefined;
}

/**
 * A {@link ClaimReader} that GETs `/apis/resource.k8s.io/<version>/namespaces/<ns>/resourceclaims/<name>` over
 * node:https with a bearer token (the service account's in a pod), the version chosen by discovery (v1, else
 * v1beta2, else v1beta1) and the claim converted to the v1 shape. A 404 discovers the version again: when it
 * changed the claim is read in the new one, else the claim is missing (undefined). Any other status rejects with
 * the API server's message.
 */
export function createKubeClaimReader(options: KubeClaimReaderOptions): ClaimReader {
  const client = createKubeClient({ access: options.access, timeoutMs: options.timeoutMs });
  const discovery =
    options.discovery ??
    createResourceApiDiscovery({ client, purpose: 'ResourceClaims', logger: options.logger });
  const read = async (
    version: ResourceApiVersion,
    namespace: string,
    name: string,
  ): Promise<ResourceClaim> => {
    const path = `/apis/resource.k8s.io/${version}/namespaces/${encodeURIComponent(namespace)}/resourceclaims/${encodeURIComponent(name)}`;
    return toResourceClaim(fromVersionClaim(await client.get(path), version));
  };
  return {
    async get(namespace, name) {
      const version = await discovery.version();
      try {
        return await read(version, namespace, name);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      const now = await discovery.rediscover();
      if (now === version) return undefined;
      try {
        return await read(now, namespace, name);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
  };
}
