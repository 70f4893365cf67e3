import { toGrpcError } from './device-plugin-error';
import { optimizingCompilers } from './optimizing-compilers';

/**
 * Answers a unary call with what `work` resolves to, or with its rejection as a gRPC status. A call is work for the
 * process: TurboFan, held off since its start (`@kdp/core/start`), goes on with the first one.
 */
export function unaryReply<T>(
  work: () => Promise<T>,
  context: string,
  callback: (error: ReturnType<typeof toGrpcError> | null, value?: T) => void,
): void {
  optimizingCompilers.release();
  work().then(
    (value) => callback(null, value),
    (error: unknown) => callback(toGrpcError(error, context)),
  );
}

/** A call's cancellation, as hooks see it. */
export interface CallCancellation {
  /** Aborts when the kubelet cancels the call. */
  readonly signal: AbortSignal;
}

/** The part of a grpc-js server call that says whether, and tells when, the kubelet cancelled it. */
export interface CancellableCall {
  readonly cancelled?: boolean;
  on(event: 'cancelled', fn: () => void): unknown;
}

/**
 * The cancellation of a call, its signal made when first read: most hooks never read it, and an AbortSignal per
 * call (and grpc-js's `cancelled` after every finished call aborting it, a DOMException each) is a good part of
 * an Allocate's cost. A signal first read after the kubelet cancelled is aborted at once.
 */
export function callCancellation(call: CancellableCall): CallCancellation {
  return new LazyCancellation(call);
}

/**
 * A class, not an object literal with a getter: a literal's getter is a new closure each time, and with it each
 * object gets a map of its own that holds the closure (and so the call and its stream) until the next full GC.
 */
class LazyCancellation implements CallCancellation {
  #controller: AbortController | undefined;
  constructor(private readonly call: CancellableCall) {}
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const made = new AbortController();
      this.#controller = made;
      if (this.call.cancelled === true) made.abort();
      else this.call.on('cancelled', () => made.abort());
    }
    return this.#controller.signal;
  }
}
