import type { EventBase } from '../event-base';

/** One device a driver prepared for a claim, as NodePrepareResources returned it. */
export interface PreparedDevice {
  readonly driver: string;
  readonly requestNames: readonly string[];
  readonly poolName: string;
  readonly deviceName: string;
  readonly cdiDeviceIds: readonly string[];
  readonly shareId?: string;
}

/** A claim the simulated kubelet prepared, with every driver's devices. */
export interface PreparedClaim {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly devices: readonly PreparedDevice[];
}

/** The health the kubelet records for one device (`Unknown` after its timeout or when the stream ended). */
export interface DraDeviceHealth {
  readonly poolName: string;
  readonly deviceName: string;
  readonly health: 'Healthy' | 'Unhealthy' | 'Unknown';
  readonly message: string;
  /** When the device was last reported, epoch ms (`last_updated_time`, or arrival when it is 0). */
  readonly lastUpdated: number;
  readonly timeoutMs: number;
}

/** A DRA plugin registered through the plugin watcher (service chosen in the plugin's order). */
export interface DraRegisteredEvent extends EventBase<'dra-registered'> {
  readonly driver: string;
  readonly endpoint: string;
  /** The DRAPlugin service the kubelet will call, e.g. `v1.DRAPlugin`. */
  readonly service: string;
  /** The health service whose NodeWatchResources the kubelet opens, if the plugin listed one. */
  readonly healthService?: string;
  readonly socketPath: string;
}

/** NodePrepareResources succeeded for every claim of a pod (or found them all prepared already). */
export interface DraPreparedEvent extends EventBase<'dra-prepared'> {
  readonly pod: string;
  readonly namespace: string;
  readonly podUid: string;
  readonly claims: readonly PreparedClaim[];
  /** Drivers actually called (claims already prepared are not sent again). */
  readonly calls: ReadonlyArray<{ readonly driver: string; readonly claims: readonly string[] }>;
}

/** Preparing a pod's claims failed, with the kubelet's message; it is retried on the next pod sync. */
export interface DraPrepareFailedEvent extends EventBase<'dra-prepare-failed'> {
  readonly pod: string;
  readonly namespace: string;
  readonly podUid: string;
  readonly message: string;
}

/** NodeUnprepareResources succeeded for the claims whose last pod ended. */
export interface DraUnpreparedEvent extends EventBase<'dra-unprepared'> {
  readonly pod: string;
  readonly namespace: string;
  readonly podUid: string;
  /** Claims unprepared (their last pod); claims still used by other pods are not listed. */
  readonly claims: ReadonlyArray<{ readonly name: string; readonly namespace: string; readonly uid: string }>;
}

/** The health the kubelet holds for a driver changed: a stream message, a timeout, or the stream ending. */
export interface DraHealthEvent extends EventBase<'dra-health'> {
  readonly driver: string;
  readonly reason: 'update' | 'timeout' | 'stream-ended';
  readonly devices: readonly DraDeviceHealth[];
}

/** The kubelet deleted ResourceSlices of its node: all at start, or one driver's after it was gone too long. */
export interface SlicesDeletedEvent extends EventBase<'slices-deleted'> {
  readonly node: string;
  /** Absent when every driver's slices were deleted (kubelet start). */
  readonly driver?: string;
  readonly reason: 'kubelet-start' | 'driver-gone';
  readonly count: number;
}

/** The kubelet's gRPC connection to a driver endpoint came up or went down. */
export interface DraConnectionEvent extends EventBase<'dra-connection'> {
  readonly driver: string;
  readonly endpoint: string;
  readonly connected: boolean;
}

/** Every DRA event of the simulator. */
export type DraEvent =
  | DraRegisteredEvent
  | DraConnectionEvent
  | DraPreparedEvent
  | DraPrepareFailedEvent
  | DraUnpreparedEvent
  | DraHealthEvent
  | SlicesDeletedEvent;
