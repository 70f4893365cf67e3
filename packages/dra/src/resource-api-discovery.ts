import { silentLogger, type LifecycleLogger } from '@kdp/base';
import { KubeApiError, type KubeClient } from '@kdp/core';

/** The `resource.k8s.io` versions the drivers speak, most preferred first (Kubernetes 1.34+, 1.33, 1.32). */
export const RESOURCE_API_VERSIONS = ['v1', 'v1beta2', 'v1beta1'] as const;

/** A `resource.k8s.io` version the drivers speak. */
export type ResourceApiVersion = (typeof RESOURCE_API_VERSIONS)[number];

/** The API group's discovery path. */
const GROUP_PATH = '/apis/resource.k8s.io';

/** Which `resource.k8s.io` version to use, found by discovery. */
export interface ResourceApiDiscovery {
  /** The version in use: discovered by the first call, then remembered. Rejects when none is served. */
  version(): Promise<ResourceApiVersion>;
  /**
   * Discovers again, after the API server answered 404 for the version in use (an upgrade or a downgrade of the
   * API server); resolves with the version now in use, logged when it changed.
   */
  rediscover(): Promise<ResourceApiVersion>;
}

/** Options of {@link createResourceApiDiscovery}. */
export interface ResourceApiDiscoveryOptions {
  readonly client: KubeClient;
  /** What uses the version, for the log line (`ResourceSlices`, `ResourceClaims`). */
  readonly purpose: string;
  readonly logger?: LifecycleLogger | undefined;
}

/**
 * Chooses the `resource.k8s.io` version from the API group's discovery document (`GET /apis/resource.k8s.io`):
 * v1, else v1beta2, else v1beta1, as Go's helper falls back. Concurrent callers share one discovery; the chosen
 * version is logged at info level, a change at warn level.
 */
export function createResourceApiDiscovery(options: ResourceApiDiscoveryOptions): ResourceApiDiscovery {
  const { client, purpose } = options;
  const logger = options.logger ?? silentLogger;
  let chosen: ResourceApiVersion | undefined;
  let pending: Promise<ResourceApiVersion> | undefined;

  const discover = (): Promise<ResourceApiVersion> => {
    pending ??= (async () => {
      try {
        const served = await servedVersions(client);
        const version = RESOURCE_API_VERSIONS.find((v) => served.includes(v));
        if (version === undefined)
          throw new Error(
            `the API server serves resource.k8s.io ${served.join(', ') || '(no version)'}, none of ` +
              `${RESOURCE_API_VERSIONS.join(', ')}: DRA needs Kubernetes 1.32 or newer`,
          );
        const fields = { group: 'resource.k8s.io', version, served };
        if (chosen === undefined) logger.info(fields, `${purpose}: resource.k8s.io/${version}`);
        else if (chosen !== version)
          logger.warn(
            fields,
            `${purpose}: resource.k8s.io/${chosen} is gone, now resource.k8s.io/${version}`,
          );
        chosen = version;
        return version;
      } finally {
        pending = undefined;
      }
    })();
    return pending;
  };

  return {
    version: () => (chosen === undefined ? discover() : Promise.resolve(chosen)),
    rediscover: discover,
  };
}

/** The versions `GET /apis/resource.k8s.io` lists; none when the group is not served (404). */
async function servedVersions(client: KubeClient): Promise<string[]> {
  let group: unknown;
  try {
    group = await client.get(GROUP_PATH);
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 404) return [];
    throw error;
  }
  const versions = (group as { versions?: { version?: unknown }[] } | null)?.versions ?? [];
  return versions.map((v) => v.version).filter((v): v is string => typeof v === 'string');
}

/** Whether `error` is the API server's 404: the object, or the whole version, is not there. */
export function isNotFound(error: unknown): boolean {
  return error instanceof KubeApiError && error.status === 404;
}
