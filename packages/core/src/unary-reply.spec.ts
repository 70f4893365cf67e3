import { EventEmitter } from 'node:events';
import { callCancellation } from './unary-reply';

/** A stand-in for a grpc-js server call: `cancelled`, and a `cancelled` event. */
function fakeCall(): EventEmitter & { cancelled: boolean; cancel(): void } {
  const call = Object.assign(new EventEmitter(), {
    cancelled: false,
    cancel() {
      call.cancelled = true;
      call.emit('cancelled');
    },
  });
  return call;
}

describe('callCancellation', () => {
  it('listens to the call only once its signal is read, and aborts it when the kubelet cancels', () => {
    const call = fakeCall();
    const cancellation = callCancellation(call);
    expect(call.listenerCount('cancelled')).toBe(0);
    const signal = cancellation.signal;
    expect(cancellation.signal).toBe(signal);
    expect(call.listenerCount('cancelled')).toBe(1);
    expect(signal.aborted).toBe(false);
    call.cancel();
    expect(signal.aborted).toBe(true);
  });

  it('gives an aborted signal when first read after the call was cancelled', () => {
    const call = fakeCall();
    const cancellation = callCancellation(call);
    call.cancel();
    expect(cancellation.signal.aborted).toBe(true);
    expect(call.listenerCount('cancelled')).toBe(0);
  });
});
