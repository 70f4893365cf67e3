import type { DevicePluginServer, PreStartContainerRequest, PreStartContainerResponse } from '@kdp/api';
import type { AllocateHandler } from './allocate-handler';
import type { DeviceStore } from './device-store';
import type { ListAndWatchCall, ListAndWatchStreams } from './list-and-watch-streams';
import { preferredAllocation } from './preferred-allocation';
import type { ResourceDeclaration } from './resource-declaration';
import { callCancellation, unaryReply, type CancellableCall } from './unary-reply';

/** What {@link createV1beta1Service} serves from. */
export interface V1beta1ServiceOptions<P> {
  readonly declaration: ResourceDeclaration<P>;
  readonly store: DeviceStore<P>;
  readonly streams: ListAndWatchStreams;
  readonly allocate: AllocateHandler;
}

/** The v1beta1 DevicePlugin service of one resource: options, ListAndWatch, preferred allocation, Allocate, PreStart. */
export function createV1beta1Service<P>(options: V1beta1ServiceOptions<P>): DevicePluginServer {
  const { declaration, store, streams, allocate } = options;
  const resource = declaration.name;
  return {
    getDevicePluginOptions: (_call, callback) =>
      callback(null, {
        preStartRequired: declaration.options?.preStartRequired === true,
        getPreferredAllocationAvailable: declaration.options?.getPreferredAllocationAvailable === true,
      }),
    listAndWatch: (call) => streams.serve(call as unknown as ListAndWatchCall, (devices) => devices),
    getPreferredAllocation: (call, callback) =>
      unaryReply(
        () => preferredAllocation(declaration, store.devices(), call.request),
        `GetPreferredAllocation for ${resource} failed`,
        callback,
      ),
    allocate: (call, callback) =>
      unaryReply(
        () => allocate(call.request, callCancellation(call)),
        `Allocate for ${resource} failed`,
        callback,
      ),
    preStartContainer: (call, callback) =>
      unaryReply(
        () => preStart(declaration, store, call),
        `preStartContainer hook for ${resource} failed`,
        callback,
      ),
  };
}

/** Runs the plugin's preStartContainer hook (if any) on the devices the request names. */
async function preStart<P>(
  declaration: ResourceDeclaration<P>,
  store: DeviceStore<P>,
  call: { readonly request: PreStartContainerRequest } & CancellableCall,
): Promise<PreStartContainerResponse> {
  const hook = declaration.preStartContainer;
  if (hook === undefined) return {};
  const ids: string[] = Array.isArray(call.request?.devicesIds) ? call.request.devicesIds : [];
  const known = store.devices();
  const devices = ids.flatMap((id) => {
    const device = known.get(id);
    return device ? [device] : [];
  });
  const unknownIds = ids.filter((id) => !known.has(id));
  await hook({ resource: declaration.name, devices, unknownIds, signal: callCancellation(call).signal });
  return {};
}
