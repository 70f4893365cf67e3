import { toGrpcError } from './device-plugin-error';

/** Answers a unary call with what `work` resolves to, or with its rejection as a gRPC status. */
export function unaryReply<T>(
  work: () => Promise<T>,
  context: string,
  callback: (error: ReturnType<typeof toGrpcError> | null, value?: T) => void,
): void {
  work().then(
    (value) => callback(null, value),
    (error: unknown) => callback(toGrpcError(error, context)),
  );
}

/** A signal that aborts when the kubelet cancels the call. */
export function cancellationSignal(call: { on(event: 'cancelled', fn: () => void): unknown }): AbortSignal {
  const controller = new AbortController();
  call.on('cancelled', () => controller.abort());
  return controller.signal;
}
