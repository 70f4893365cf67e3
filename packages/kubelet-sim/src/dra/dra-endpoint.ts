import { type Client, type ClientReadableStream, connectivityState, credentials } from '@grpc/grpc-js';
import { draHealthV1, draHealthV1alpha1, draV1, draV1beta1 } from '@kdp/api';
import { callUnary, goErrorString, pluginChannelOptions } from '../grpc-util';
import type { DraHealthService, DraPluginService } from './dra-services';

/** A claim's identity as the kubelet sends it. */
export type DraClaim = draV1.Claim;

/** The simulated kubelet's connection to one endpoint of a DRA driver. */
export interface DraEndpoint {
  readonly driver: string;
  readonly endpoint: string;
  readonly socketPath: string;
  readonly service: DraPluginService;
  readonly healthService: DraHealthService | undefined;
  /** Whether the gRPC connection is up (the kubelet's `connected`, from its connection stats). */
  readonly connected: boolean;
  prepare(claims: DraClaim[], timeoutMs: number): Promise<draV1.NodePrepareResourcesResponse>;
  unprepare(claims: DraClaim[], timeoutMs: number): Promise<draV1.NodeUnprepareResourcesResponse>;
  /** Opens NodeWatchResources on the health service; the returned function cancels it. */
  watchHealth(handlers: {
    onMessage(devices: draHealthV1alpha1.DeviceHealth[]): void;
    onEnd(reason: string): void;
  }): () => void;
  close(): void;
}

/** Client options: reconnect quickly after a plugin restart (the kubelet's gRPC reconnects on its own). */
const draChannelOptions = {
  ...pluginChannelOptions,
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 1000,
} as const;

/**
 * Creates the one gRPC connection the kubelet keeps per DRA endpoint (`grpc.NewClient` + `Connect`): it
 * connects in the background; `onConnectedChange` reports READY and its loss, and an idle channel is woken
 * again, as the kubelet's stats handler does.
 */
export function connectDraEndpoint(options: {
  driver: string;
  endpoint: string;
  socketPath: string;
  service: DraPluginService;
  healthService: DraHealthService | undefined;
  onConnectedChange(connected: boolean): void;
}): DraEndpoint {
  const address = `unix://${options.endpoint}`;
  const insecure = credentials.createInsecure();
  const plugin =
    options.service === 'v1.DRAPlugin'
      ? new draV1.DRAPluginClient(address, insecure, draChannelOptions)
      : new draV1beta1.DRAPluginClient(address, insecure, draChannelOptions);
  const channel = plugin.getChannel();
  let closed = false;
  let connected = false;
  const watch = (): void => {
    if (closed) return;
    const state = channel.getConnectivityState(true);
    const now = state === connectivityState.READY;
    if (now !== connected) {
      connected = now;
      options.onConnectedChange(now);
    }
    if (state === connectivityState.SHUTDOWN) return;
    // Short slices, so that a closed channel leaves no long timer behind.
    channel.watchConnectivityState(state, Date.now() + 1000, () => watch());
  };
  watch();

  const healthClient = (): Client & {
    nodeWatchResources: draHealthV1alpha1.DRAResourceHealthClient['nodeWatchResources'];
  } => {
    const shared = { channelOverride: channel };
    return options.healthService === 'v1.DRAResourceHealth'
      ? new draHealthV1.DRAResourceHealthClient(address, insecure, shared)
      : new draHealthV1alpha1.DRAResourceHealthClient(address, insecure, shared);
  };

  return {
    driver: options.driver,
    endpoint: options.endpoint,
    socketPath: options.socketPath,
    service: options.service,
    healthService: options.healthService,
    get connected() {
      return connected;
    },
    prepare: (claims, timeoutMs) =>
      callUnary(
        plugin,
        plugin.nodePrepareResources as never,
        { claims },
        timeoutMs,
      ) as Promise<draV1.NodePrepareResourcesResponse>,
    unprepare: (claims, timeoutMs) =>
      callUnary(
        plugin,
        plugin.nodeUnprepareResources as never,
        { claims },
        timeoutMs,
      ) as Promise<draV1.NodeUnprepareResourcesResponse>,
    watchHealth: (handlers) => {
      const client = healthClient();
      const stream: ClientReadableStream<draHealthV1alpha1.NodeWatchResourcesResponse> =
        client.nodeWatchResources({});
      let ended = false;
      const end = (reason: string): void => {
        if (ended) return;
        ended = true;
        handlers.onEnd(reason);
      };
      stream.on('data', (message: draHealthV1alpha1.NodeWatchResourcesResponse) => {
        if (!ended) handlers.onMessage(message.devices);
      });
      stream.on('error', (err: unknown) => end(goErrorString(err)));
      stream.on('end', () => end('EOF'));
      return () => {
        ended = true;
        stream.cancel();
      };
    },
    close: () => {
      closed = true;
      plugin.close();
    },
  };
}
