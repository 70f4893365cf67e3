import { status, type ServerWritableStream } from '@grpc/grpc-js';
import {
  type ContainerAllocateResponse,
  type DevicePluginServer,
  type ListAndWatchResponse,
  Unhealthy,
  type v1alpha,
} from '@kdp/api';
import { rpcError } from '../grpc-util';
import type { TestPluginState } from './test-plugin-state';

/** Options of {@link createTestPluginHandlers}. */
export interface TestPluginHandlersOptions {
  readonly state: TestPluginState;
  /** The ListAndWatch stream of the latest registration ended. */
  readonly onLatestStreamEnd: () => void;
  /** Stops serving (a plugin crashing on bad input). */
  readonly stopServing: () => Promise<void>;
}

/** The device plugin services of a test plugin, each behaving as its options say. */
export interface TestPluginHandlers {
  readonly v1beta1: DevicePluginServer;
  readonly v1alpha: v1alpha.DevicePluginServer;
}

const emptyResponse = (ids: readonly string[]): ContainerAllocateResponse => ({
  envs: { TEST_DEVICES: ids.join(',') },
  mounts: [],
  devices: ids.map((id) => ({ containerPath: `/dev/${id}`, hostPath: `/dev/${id}`, permissions: 'rw' })),
  annotations: {},
  cdiDevices: [],
});

/** ListAndWatch: the device list at once (or after a delay), later lists on `setDevices`. */
function listAndWatchHandler(
  state: TestPluginState,
  onLatestStreamEnd: () => void,
): (call: ServerWritableStream<unknown, ListAndWatchResponse>) => void {
  const { options } = state;
  return (call) => {
    const generation = state.registerGeneration;
    const send = { write: (m: ListAndWatchResponse) => call.write(m) };
    const stream = (state.streamCount += 1);
    const start = (): void => {
      if (call.cancelled) return;
      state.streams.add(send);
      if (stream > 1 && options.unhealthyAfterReregisterMs !== undefined) {
        call.write({ devices: state.devices.map((d) => ({ ...d, health: Unhealthy })) });
        setTimeout(() => {
          if (!call.cancelled) call.write({ devices: state.devices });
        }, options.unhealthyAfterReregisterMs).unref();
        return;
      }
      call.write({ devices: state.devices });
      const first = state.devices[0];
      if (options.deltaUpdates && first !== undefined) {
        // Right behind the full list, so the delta arrives however loaded the machine is.
        call.write({ devices: [{ ...first, health: Unhealthy }] });
      }
    };
    if (options.firstListDelayMs === undefined) start();
    else setTimeout(start, options.firstListDelayMs).unref();
    call.on('cancelled', () => {
      state.streams.delete(send);
      // Only the stream of the latest registration counts: the kubelet closes older ones itself.
      if (generation === state.registerGeneration && options.reregisterOnStreamEnd !== false)
        onLatestStreamEnd();
    });
  };
}

/** GetPreferredAllocation: correct, or broken in the way `options.preferred` says. */
const preferredAllocation =
  (state: TestPluginState): DevicePluginServer['getPreferredAllocation'] =>
  (call, callback) => {
    if (state.options.preferred === 'error') {
      callback(rpcError(status.INTERNAL, 'topology unknown'));
      return;
    }
    const containerResponses = call.request.containerRequests.map((r) => {
      const mode = state.options.preferred ?? 'correct';
      if (mode === 'unavailable-ids') return { deviceIDs: ['no-such-device'] };
      const pool =
        mode === 'ignore-must-include'
          ? r.availableDeviceIDs.filter((id) => !r.mustIncludeDeviceIDs.includes(id))
          : [
              ...r.mustIncludeDeviceIDs,
              ...r.availableDeviceIDs.filter((id) => !r.mustIncludeDeviceIDs.includes(id)),
            ];
      const size = mode === 'wrong-size' ? r.allocationSize + 1 : r.allocationSize;
      return { deviceIDs: pool.slice(0, size) };
    });
    callback(null, { containerResponses });
  };

/** Creates the services a test plugin serves. */
export function createTestPluginHandlers(handlers: TestPluginHandlersOptions): TestPluginHandlers {
  const { state, stopServing } = handlers;
  const { options } = state;
  const listAndWatch = listAndWatchHandler(state, handlers.onLatestStreamEnd);
  const isKnown = (id: string): boolean => state.devices.some((d) => d.ID === id);
  const v1beta1: DevicePluginServer = {
    getDevicePluginOptions: (_call, callback) => callback(null, state.pluginOptions),
    listAndWatch,
    getPreferredAllocation: preferredAllocation(state),
    allocate: (call, callback) => {
      const requests = call.request.containerRequests;
      const unknown = requests.flatMap((r) => r.devicesIds).filter((id) => !isKnown(id));
      if (unknown.length > 0 && !options.acceptUnknownIds) {
        if (options.dieOnUnknownIds) {
          void stopServing();
          return;
        }
        callback(rpcError(status.INVALID_ARGUMENT, `unknown device IDs: ${unknown.join(', ')}`));
        return;
      }
      if (options.allocate === 'error') {
        callback(rpcError(status.INTERNAL, 'device is busy'));
        return;
      }
      const selected =
        options.allocate === 'none' ? [] : options.allocate === 'single' ? requests.slice(0, 1) : requests;
      callback(null, { containerResponses: selected.map((r) => emptyResponse(r.devicesIds)) });
    },
    preStartContainer: (_call, callback) => {
      if (options.preStart === 'hang') return;
      if (options.preStart === 'error') {
        callback(rpcError(status.INTERNAL, 'device reset failed'));
        return;
      }
      callback(null, {});
    },
  };
  const v1alphaServer: v1alpha.DevicePluginServer = {
    listAndWatch: (call) =>
      listAndWatch(call as unknown as ServerWritableStream<unknown, ListAndWatchResponse>),
    allocate: (call, callback) =>
      callback(null, {
        ...emptyResponse(call.request.devicesIDs),
        cdiDevices: undefined,
      } as v1alpha.AllocateResponse),
  };
  return { v1beta1, v1alpha: v1alphaServer };
}
