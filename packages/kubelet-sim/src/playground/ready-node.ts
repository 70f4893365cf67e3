import { ApiError } from '../api-server/api-errors';
import type { ObjectStore } from '../api-server/object-store';
import { kubeTime } from './pod-status';

/** The status a kubelet reports for a healthy node: Ready=True, with its address. */
function readyStatus(nowMs: number): Record<string, unknown> {
  const now = kubeTime(nowMs);
  return {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      },
    ],
    addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
  };
}

/**
 * Registers node `name` as a kubelet does (created with its hostname label when missing) and marks it
 * Ready=True; an existing node keeps its other fields.
 */
export function ensureReadyNode(store: ObjectStore, name: string, nowMs: number): void {
  try {
    store.create('nodes', {
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' } },
    });
  } catch (err) {
    if (!(err instanceof ApiError && err.status.code === 409)) throw err;
  }
  store.patch('nodes', name, { status: readyStatus(nowMs) });
}

/**
 * Keeps node `name` registered as a running kubelet does: registers it now and again whenever it is deleted.
 * Returns the function that stops watching.
 */
export function keepNodeRegistered(store: ObjectStore, name: string, now: () => number): () => void {
  ensureReadyNode(store, name, now());
  let stopped = false;
  const stop = store.watch('nodes', { fieldSelector: `metadata.name=${name}` }, (event) => {
    // After the delete that the watch reports, not inside it.
    if (event.type === 'DELETED') queueMicrotask(() => !stopped && ensureReadyNode(store, name, now()));
  });
  return () => {
    stopped = true;
    stop();
  };
}
