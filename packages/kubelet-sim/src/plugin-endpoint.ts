import { credentials, type ClientReadableStream } from '@grpc/grpc-js';
import {
  type ContainerAllocateResponse,
  type Device,
  DevicePluginClient,
  type DevicePluginOptions,
  type ListAndWatchResponse,
  v1alpha,
} from '@kdp/api';
import { callUnary, goErrorString, pluginChannelOptions, waitForReady } from './grpc-util';
import type { PluginApiVersion } from './sim-events';

/** Callbacks of one ListAndWatch stream. */
export interface StreamHandlers {
  onDevices(devices: Device[]): void;
  onEnd(reason: string): void;
}

/** The simulated kubelet's connection to one registered plugin (the kubelet's `endpoint`). */
export interface PluginEndpoint {
  readonly apiVersion: PluginApiVersion;
  readonly socketPath: string;
  getOptions(): Promise<DevicePluginOptions>;
  /** Opens the registration's one ListAndWatch stream (P-12); the returned function cancels it. */
  listAndWatch(handlers: StreamHandlers): () => void;
  getPreferredAllocation(available: string[], mustInclude: string[], size: number): Promise<string[]>;
  /** One Allocate RPC with exactly one container request (P-27); returns every container response. */
  allocate(deviceIds: string[]): Promise<ContainerAllocateResponse[]>;
  preStartContainer(deviceIds: string[], timeoutMs: number): Promise<void>;
  close(): void;
}

/** Dials a plugin's socket like the kubelet: blocking, with a timeout (P-11); rejects with the kubelet's message. */
export async function connectPluginEndpoint(
  socketPath: string,
  apiVersion: PluginApiVersion,
  dialTimeoutMs: number,
  signal?: AbortSignal,
): Promise<PluginEndpoint> {
  const address = `unix://${socketPath}`;
  const insecure = credentials.createInsecure();
  const client =
    apiVersion === 'v1beta1'
      ? new DevicePluginClient(address, insecure, pluginChannelOptions)
      : new v1alpha.DevicePluginClient(address, insecure, pluginChannelOptions);
  try {
    await waitForReady(client, dialTimeoutMs, signal);
  } catch (err) {
    client.close();
    throw new Error(`failed to dial device plugin: ${goErrorString(err)}`, { cause: err });
  }
  return client instanceof DevicePluginClient
    ? v1beta1Endpoint(client, socketPath)
    : v1alphaEndpoint(client as v1alpha.DevicePluginClient, socketPath);
}

function v1beta1Endpoint(client: DevicePluginClient, socketPath: string): PluginEndpoint {
  return {
    apiVersion: 'v1beta1',
    socketPath,
    getOptions: () => callUnary(client, client.getDevicePluginOptions, {}),
    listAndWatch: (handlers) => watch(client.listAndWatch({}), handlers),
    getPreferredAllocation: async (available, mustInclude, size) => {
      const response = await callUnary(client, client.getPreferredAllocation, {
        containerRequests: [
          { availableDeviceIDs: available, mustIncludeDeviceIDs: mustInclude, allocationSize: size },
        ],
      });
      // P-26: the kubelet reads only container_responses[0].
      return response.containerResponses[0]?.deviceIDs ?? [];
    },
    allocate: async (deviceIds) =>
      (await callUnary(client, client.allocate, { containerRequests: [{ devicesIds: deviceIds }] }))
        .containerResponses,
    preStartContainer: async (deviceIds, timeoutMs) => {
      await callUnary(client, client.preStartContainer, { devicesIds: deviceIds }, timeoutMs);
    },
    close: () => client.close(),
  };
}

function v1alphaEndpoint(client: v1alpha.DevicePluginClient, socketPath: string): PluginEndpoint {
  const unsupported = (rpc: string): Promise<never> =>
    Promise.reject(new Error(`the v1alpha API has no ${rpc}`));
  return {
    apiVersion: 'v1alpha2',
    socketPath,
    // v1alpha has no options: nothing to prestart, no preferred allocation.
    getOptions: () => Promise.resolve({ preStartRequired: false, getPreferredAllocationAvailable: false }),
    listAndWatch: (handlers) =>
      watch(client.listAndWatch({}), {
        onDevices: (devices) => handlers.onDevices(devices.map((d) => ({ ...d, topology: undefined }))),
        onEnd: handlers.onEnd,
      }),
    getPreferredAllocation: () => unsupported('GetPreferredAllocation'),
    allocate: async (deviceIds) => {
      // v1alpha Allocate is for a single container and its response is flat.
      const flat = await callUnary(client, client.allocate, { devicesIDs: deviceIds });
      return [{ ...flat, cdiDevices: [] }];
    },
    preStartContainer: () => unsupported('PreStartContainer'),
    close: () => client.close(),
  };
}

function watch(
  stream: ClientReadableStream<ListAndWatchResponse | v1alpha.ListAndWatchResponse>,
  handlers: StreamHandlers,
): () => void {
  let ended = false;
  const end = (reason: string): void => {
    if (ended) return;
    ended = true;
    handlers.onEnd(reason);
  };
  stream.on('data', (message: { devices: Device[] }) => {
    if (!ended) handlers.onDevices(message.devices);
  });
  stream.on('error', (err) => end(goErrorString(err)));
  stream.on('end', () => end('the plugin ended the stream (EOF)'));
  return () => stream.cancel();
}
