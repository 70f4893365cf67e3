import { status } from '@grpc/grpc-js';
import type { podresources } from '@kdp/api';
import type { LifecycleLogger } from '@kdp/base';
import { buildNodeSnapshot, type NodeSnapshot } from './node-snapshot';
import { grpcCode, grpcCodeName, type PodResourcesClient } from './pod-resources-client';
import type { PodResourcesMethod, StatusMetrics } from './status-metrics';

/** The result of one poll of the pod-resources API. */
export type PollResult =
  | { ok: true; snapshot: NodeSnapshot }
  | { ok: false; method: PodResourcesMethod; code: string; message: string };

/** What {@link createPodResourcesPoller} calls and where it reports. */
export interface PodResourcesPollerOptions {
  readonly client: PodResourcesClient;
  readonly statusMetrics: StatusMetrics;
  readonly logger: LifecycleLogger;
  /** Called with every new snapshot before the poll resolves; a throw fails the poll. */
  readonly onSnapshot: (snapshot: NodeSnapshot) => void;
}

/** One poll of the pod-resources API; never rejects. */
export type PodResourcesPoller = () => Promise<PollResult>;

/**
 * Creates the pod-resources poll: GetAllocatableResources (until the kubelet says it does not serve it) and
 * List, each call timed and counted, joined into a node snapshot.
 */
export function createPodResourcesPoller(options: PodResourcesPollerOptions): PodResourcesPoller {
  const { client, statusMetrics, logger } = options;
  let allocatableSupported = true;

  const timed = async <T>(method: PodResourcesMethod, call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      const result = await call();
      statusMetrics.podResourcesCall(method, 'OK', (performance.now() - started) / 1000);
      return result;
    } catch (error) {
      statusMetrics.podResourcesCall(
        method,
        grpcCodeName(grpcCode(error)),
        (performance.now() - started) / 1000,
      );
      throw Object.assign(error instanceof Error ? error : new Error(String(error)), { method });
    } finally {
      statusMetrics.reconnects(Math.max(0, client.channelsOpened - 1));
    }
  };

  return async () => {
    try {
      let allocatable: podresources.AllocatableResourcesResponse | undefined;
      if (allocatableSupported) {
        try {
          allocatable = await timed('GetAllocatableResources', () => client.getAllocatableResources());
        } catch (error) {
          if (grpcCode(error) !== status.UNIMPLEMENTED) throw error;
          allocatableSupported = false;
          logger.warn(
            {},
            'GetAllocatableResources is not served by this kubelet; allocatable and unallocated metrics are off',
          );
        }
      }
      const list = await timed('List', () => client.list());
      const snapshot = buildNodeSnapshot(allocatable, list);
      options.onSnapshot(snapshot);
      return { ok: true, snapshot };
    } catch (error) {
      const method = ((error as { method?: PodResourcesMethod }).method ?? 'List') as PodResourcesMethod;
      return {
        ok: false,
        method,
        code: grpcCodeName(grpcCode(error)),
        message: error instanceof Error ? error.message : String(error),
      };
    }
  };
}
