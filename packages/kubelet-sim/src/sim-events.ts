import type { EventEmitter } from 'node:events';
import type { ContainerAllocateResponse, Device, DevicePluginOptions } from '@kdp/api';
import type { DraEvent } from './dra/dra-events';
import type { EventBase } from './event-base';

/** API version a plugin registered with: the current one, or the old v1alpha (`v1alpha2`). */
export type PluginApiVersion = 'v1beta1' | 'v1alpha2';

export type { EventBase } from './event-base';

/** A Register was accepted: dial and GetDevicePluginOptions succeeded (P-11). */
export interface RegisteredEvent extends EventBase<'registered'> {
  readonly resource: string;
  readonly endpoint: string;
  readonly version: string;
  /** The reply to GetDevicePluginOptions, which the kubelet uses (P-10). */
  readonly options: DevicePluginOptions;
  /** `RegisterRequest.options` as the plugin sent them (the kubelet ignores them, P-10). */
  readonly requestOptions: DevicePluginOptions | undefined;
  /** Whether the plugin's socket accepted a connection at the moment Register arrived (P-11). */
  readonly servingAtRegister: boolean;
  /** How the plugin registered: a Register call, or the plugin watcher (P-36). */
  readonly via: 'register' | 'plugin-watcher';
}

/** A Register was refused, with the kubelet's message (P-7, P-8, P-11). */
export interface RegisterRejectedEvent extends EventBase<'register-rejected'> {
  readonly resource: string;
  readonly endpoint: string;
  readonly version: string;
  readonly message: string;
}

/** A ListAndWatch message arrived (P-14, P-15). */
export interface DevicesEvent extends EventBase<'devices'> {
  readonly resource: string;
  readonly devices: Device[];
  readonly healthy: string[];
  readonly unhealthy: string[];
}

/** A ListAndWatch stream ended; every device of the resource is now unhealthy (P-19). */
export interface StreamEndedEvent extends EventBase<'stream-ended'> {
  readonly resource: string;
  readonly reason: string;
}

/** The grace period after a stream ended ran out; the resource is gone (P-19). */
export interface ResourceRemovedEvent extends EventBase<'resource-removed'> {
  readonly resource: string;
}

/** An admission allocated devices (P-23, P-27). */
export interface AllocatedEvent extends EventBase<'allocated'> {
  readonly pod: string;
  readonly namespace: string;
  readonly container: string;
  readonly resource: string;
  readonly deviceIds: string[];
  readonly response: ContainerAllocateResponse;
}

/** An admission or container start failed, with the kubelet's message (P-24, P-26, P-27, P-29). */
export interface AdmissionFailedEvent extends EventBase<'admission-failed'> {
  readonly pod: string;
  readonly namespace: string;
  readonly container: string;
  readonly resource: string;
  readonly message: string;
}

/** PreStartContainer succeeded (P-29). */
export interface PreStartedEvent extends EventBase<'pre-started'> {
  readonly pod: string;
  readonly namespace: string;
  readonly container: string;
  readonly resource: string;
  readonly deviceIds: string[];
}

/** The simulated kubelet restarted and serves kubelet.sock again (P-2, P-3). */
export type RestartedEvent = EventBase<'restarted'>;

/** The checkpoint file was rewritten (P-17, P-31). */
export interface CheckpointWrittenEvent extends EventBase<'checkpoint-written'> {
  readonly path: string;
}

/** Every event the simulator emits. */
export type SimEvent =
  | RegisteredEvent
  | RegisterRejectedEvent
  | DevicesEvent
  | StreamEndedEvent
  | ResourceRemovedEvent
  | AllocatedEvent
  | AdmissionFailedEvent
  | PreStartedEvent
  | RestartedEvent
  | CheckpointWrittenEvent
  | DraEvent;

/** The name of a simulator event. */
export type SimEventType = SimEvent['type'];

/** The event object of one type. */
export type SimEventOf<T extends SimEventType> = Extract<SimEvent, { type: T }>;

/**
 * Resolves with the first event of `type` matching `predicate` emitted after the call; rejects after
 * `timeoutMs` with a message naming what it waited for.
 */
export function waitForEvent<T extends SimEventType>(
  emitter: EventEmitter,
  type: T,
  predicate: ((event: SimEventOf<T>) => boolean) | undefined,
  timeoutMs: number,
): Promise<SimEventOf<T>> {
  return new Promise((resolve, reject) => {
    const listener = (event: SimEventOf<T>): void => {
      let matches: boolean;
      try {
        matches = predicate === undefined || predicate(event);
      } catch (err) {
        cleanup();
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (!matches) return;
      cleanup();
      resolve(event);
    };
    const timer = setTimeout(() => {
      cleanup();
      const what = predicate === undefined ? '' : ` matching ${predicate.toString()}`;
      reject(new Error(`kubelet-sim: no "${type}" event${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      emitter.off(type, listener);
    };
    emitter.on(type, listener);
  });
}
