import type { AllocateRequest, AllocateResponse } from '@kdp/api';
import { allocateContainers } from './allocate-containers';
import { toGrpcError } from './device-plugin-error';
import type { ServedResource } from './served-resource';

/** Answers one Allocate request; rejects with the plugin's error. */
export type AllocateHandler = (request: AllocateRequest, signal: AbortSignal) => Promise<AllocateResponse>;

/** Creates the Allocate of one resource: the store's current devices, one `allocate` event per call either way. */
export function createAllocateHandler<P>(served: ServedResource<P>): AllocateHandler {
  const { declaration, store, clock, logger, emit, transform } = served;
  const resource = declaration.name;
  return async (request, signal) => {
    const started = clock.now();
    const ids = (Array.isArray(request?.containerRequests) ? request.containerRequests : []).flatMap((c) =>
      Array.isArray(c?.devicesIds) ? c.devicesIds.slice(0, 64) : [],
    );
    try {
      const response = await allocateContainers(declaration, store.devices(), request, signal, transform);
      emit({
        type: 'allocate',
        resource,
        at: clock.now(),
        outcome: 'ok',
        durationMs: clock.now() - started,
        containers: response.containerResponses.length,
        deviceIds: ids,
      });
      return response;
    } catch (error) {
      const grpc = toGrpcError(error, `Allocate for ${resource} failed`);
      emit({
        type: 'allocate',
        resource,
        at: clock.now(),
        outcome: 'error',
        durationMs: clock.now() - started,
        containers: request?.containerRequests?.length ?? 0,
        deviceIds: ids,
        code: grpc.code,
        message: grpc.details,
      });
      logger.warn({ resource, code: grpc.code, message: grpc.details }, 'Allocate failed');
      throw error;
    }
  };
}
