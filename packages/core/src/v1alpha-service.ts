import { v1alpha } from '@kdp/api';
import type { AllocateHandler } from './allocate-handler';
import { Code } from './code';
import { DevicePluginError } from './device-plugin-error';
import type { ListAndWatchCall, ListAndWatchStreams } from './list-and-watch-streams';
import { callCancellation, unaryReply } from './unary-reply';

/** What {@link createV1alphaService} serves from. */
export interface V1alphaServiceOptions {
  readonly resource: string;
  readonly streams: ListAndWatchStreams;
  readonly allocate: AllocateHandler;
}

/** The old API (P-1.4): one container per Allocate, a flat response, no topology and no CDI. */
export function createV1alphaService(options: V1alphaServiceOptions): v1alpha.DevicePluginServer {
  const { resource, streams, allocate } = options;
  return {
    listAndWatch: (call) =>
      streams.serve(call as unknown as ListAndWatchCall, (devices) =>
        devices.map((d) => ({ ID: d.ID, health: d.health })),
      ),
    allocate: (call, callback) =>
      unaryReply(
        async () => {
          const ids = Array.isArray(call.request?.devicesIDs) ? call.request.devicesIDs : [];
          const response = await allocate(
            { containerRequests: [{ devicesIds: ids }] },
            callCancellation(call),
          );
          const first = response.containerResponses[0];
          if (first === undefined)
            throw new DevicePluginError(Code.Internal, `Allocate for ${resource}: no response`);
          return {
            envs: first.envs,
            mounts: first.mounts,
            devices: first.devices,
            annotations: first.annotations,
          };
        },
        `Allocate for ${resource} failed`,
        callback,
      ),
  };
}
