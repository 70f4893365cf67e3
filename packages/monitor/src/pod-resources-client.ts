import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { podresources } from '@kdp/api';
import { resolve } from 'node:path';

/** Options of {@link createPodResourcesClient}. */
export interface PodResourcesClientOptions {
  /** The kubelet's pod-resources socket (default /var/lib/kubelet/pod-resources/kubelet.sock). */
  socketPath: string;
  /** Deadline of each call (default 5 s). */
  callTimeoutMs?: number;
  /** Largest response accepted (default 16 MiB, the kubelet's own limit). */
  maxMessageBytes?: number;
}

/** Promise-based PodResourcesLister client that replaces its channel after a connection-level error. */
export interface PodResourcesClient {
  list(): Promise<podresources.ListPodResourcesResponse>;
  getAllocatableResources(): Promise<podresources.AllocatableResourcesResponse>;
  get(podName: string, podNamespace: string): Promise<podresources.GetPodResourcesResponse>;
  /** How many channels were opened so far (1 + reconnects). */
  readonly channelsOpened: number;
  close(): void;
}

/** gRPC codes after which the channel is dropped and a fresh one dials the (possibly recreated) socket. */
const reconnectCodes: ReadonlySet<number> = new Set([
  status.UNAVAILABLE,
  status.DEADLINE_EXCEEDED,
  status.CANCELLED,
  status.UNKNOWN,
  status.INTERNAL,
]);

/** The gRPC status code of an error, or UNKNOWN when it carries none. */
export function grpcCode(error: unknown): number {
  const code = (error as Partial<ServiceError> | undefined)?.code;
  return typeof code === 'number' ? code : status.UNKNOWN;
}

/** The gRPC status name of a code, e.g. 8 → "RESOURCE_EXHAUSTED". */
export function grpcCodeName(code: number): string {
  return status[code] ?? String(code);
}

/** Creates a client for the kubelet's PodResourcesLister service on a unix socket. */
export function createPodResourcesClient(options: PodResourcesClientOptions): PodResourcesClient {
  const address = `unix://${resolve(options.socketPath)}`;
  const callTimeoutMs = options.callTimeoutMs ?? 5_000;
  const maxMessageBytes = options.maxMessageBytes ?? 16 * 1024 * 1024;
  let client: podresources.PodResourcesListerClient | undefined;
  let channelsOpened = 0;
  let closed = false;

  const current = (): podresources.PodResourcesListerClient => {
    if (closed) throw Object.assign(new Error('pod-resources client closed'), { code: status.CANCELLED });
    if (!client) {
      client = new podresources.PodResourcesListerClient(address, credentials.createInsecure(), {
        'grpc.max_receive_message_length': maxMessageBytes,
        // A private subchannel, so a new channel really dials again instead of inheriting a
        // shared subchannel that sits in its reconnect backoff after the kubelet went away.
        'grpc.use_local_subchannel_pool': 1,
        'grpc.initial_reconnect_backoff_ms': 200,
        'grpc.max_reconnect_backoff_ms': 2_000,
      });
      channelsOpened += 1;
    }
    return client;
  };

  const dropChannel = (stale: podresources.PodResourcesListerClient) => {
    if (client === stale) client = undefined;
    stale.close();
  };

  const unary = <Res>(
    invoke: (
      c: podresources.PodResourcesListerClient,
      metadata: Metadata,
      deadline: { deadline: number },
      callback: (error: ServiceError | null, response: Res) => void,
    ) => unknown,
  ): Promise<Res> =>
    new Promise<Res>((resolvePromise, reject) => {
      let c: podresources.PodResourcesListerClient;
      try {
        c = current();
      } catch (error) {
        reject(error);
        return;
      }
      invoke(c, new Metadata(), { deadline: Date.now() + callTimeoutMs }, (error, response) => {
        if (error) {
          if (reconnectCodes.has(grpcCode(error))) dropChannel(c);
          reject(error);
        } else {
          resolvePromise(response);
        }
      });
    });

  return {
    list: () => unary((c, m, o, cb) => c.list({}, m, o, cb)),
    getAllocatableResources: () => unary((c, m, o, cb) => c.getAllocatableResources({}, m, o, cb)),
    get: (podName, podNamespace) => unary((c, m, o, cb) => c.get({ podName, podNamespace }, m, o, cb)),
    get channelsOpened() {
      return channelsOpened;
    },
    close() {
      closed = true;
      client?.close();
      client = undefined;
    },
  };
}
