import type { AllocateRequest, AllocateResponse } from '@kdp/api';
import { allocateContainers } from './allocate-containers';
import { toGrpcError } from './device-plugin-error';
import type { ServedResource } from './served-resource';
import type { CallCancellation } from './unary-reply';

/** Answers one Allocate request; rejects with the plugin's error. */
export type AllocateHandler = (
  request: AllocateRequest,
  cancellation: CallCancellation,
) => Promise<AllocateResponse>;

/** The IDs an `allocate` event names: each container request's first 64, in order. */
function requestedIds(request: AllocateRequest): string[] {
  const ids: string[] = [];
  const containers = Array.isArray(request?.containerRequests) ? request.containerRequests : [];
  for (const container of containers) {
    const own = container?.devicesIds;
    if (!Array.isArray(own)) continue;
    for (let i = 0; i < own.length && i < 64; i++) ids.push(own[i] as string);
  }
  return ids;
}

/** Creates the Allocate of one resource: the store's current devices, one `allocate` event per call either way. */
export function createAllocateHandler<P>(served: ServedResource<P>): AllocateHandler {
  const { declaration, store, clock, logger, emit, transform } = served;
  const resource = declaration.name;
  return async (request, cancellation) => {
    const started = clock.now();
    const ids = requestedIds(request);
    try {
      const response = await allocateContainers(
        declaration,
        store.devices(),
        request,
        cancellation,
        transform,
      );
      const at = clock.now();
      emit({
        type: 'allocate',
        resource,
        at,
        outcome: 'ok',
        durationMs: at - started,
        containers: response.containerResponses.length,
        deviceIds: ids,
      });
      return response;
    } catch (error) {
      const grpc = toGrpcError(error, `Allocate for ${resource} failed`);
      const at = clock.now();
      emit({
        type: 'allocate',
        resource,
        at,
        outcome: 'error',
        durationMs: at - started,
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
