import type { PluginDevice } from './plugin-device';

/** The lifecycle states of one resource. */
export type ResourceState = 'stopped' | 'serving' | 'registering' | 'registered' | 'disconnected' | 'backoff';

/** Why a resource registers again. */
export type ReregistrationReason =
  | 'kubelet-restarted'
  | 'kubelet-gone'
  | 'socket-deleted'
  | 'stream-cancelled'
  | 'registration-failed'
  | 'rejected-by-kubelet';

/** Fields every event carries. */
interface EventBase {
  /** The resource name. */
  readonly resource: string;
  /** Epoch milliseconds (fractional), from the plugin's clock. */
  readonly at: number;
}

/** A state transition, with why it happened. */
export interface StateEvent extends EventBase {
  readonly type: 'state';
  readonly from: ResourceState;
  readonly to: ResourceState;
  readonly reason: string;
}

/** The kubelet accepted a registration (first one: `reason` undefined; later ones say why). */
export interface RegisteredEvent extends EventBase {
  readonly type: 'registered';
  readonly endpoint: string;
  readonly apiVersion: 'v1beta1' | 'v1alpha2';
  readonly mode: 'kubelet' | 'plugin-watcher';
  readonly reregistration: boolean;
  readonly reason?: ReregistrationReason;
  /** Milliseconds from leaving `registered` (or from start) to registered again. */
  readonly durationMs: number;
}

/** A registration attempt failed; the next one follows after `retryInMs`. */
export interface RegisterFailedEvent extends EventBase {
  readonly type: 'register-failed';
  readonly attempt: number;
  readonly message: string;
  readonly retryInMs: number;
}

/** Retries ran out (`maxAttempts`); the resource stays stopped. */
export interface GaveUpEvent extends EventBase {
  readonly type: 'gave-up';
  readonly attempts: number;
  readonly message: string;
}

/** The device list the kubelet sees changed (full list). */
export interface DevicesEvent extends EventBase {
  readonly type: 'devices';
  readonly devices: readonly PluginDevice<unknown>[];
  readonly healthy: number;
  readonly unhealthy: number;
  readonly warnings: readonly string[];
}

/** One Allocate call finished. */
export interface AllocateEvent extends EventBase {
  readonly type: 'allocate';
  readonly outcome: 'ok' | 'error';
  readonly durationMs: number;
  readonly containers: number;
  readonly deviceIds: readonly string[];
  /** gRPC status code and message when `outcome` is `error`. */
  readonly code?: number;
  readonly message?: string;
}

/** A ListAndWatch stream opened or closed; `open` is how many are open now. */
export interface StreamEvent extends EventBase {
  readonly type: 'stream-opened' | 'stream-closed';
  readonly open: number;
}

/** A resource was added to or removed from the running plugin. */
export interface ResourceEvent extends EventBase {
  readonly type: 'resource-added' | 'resource-removed';
}

/** Everything a plugin reports; drives logs and metrics (see the metrics contract). */
export type DevicePluginEvent =
  | StateEvent
  | RegisteredEvent
  | RegisterFailedEvent
  | GaveUpEvent
  | DevicesEvent
  | AllocateEvent
  | StreamEvent
  | ResourceEvent;
