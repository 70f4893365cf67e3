import type { CdiContainerEdits } from '@kdp/core';
import type { ClaimRef } from './check-allocation';
import type { PreparedClaimRecord, PreparedDeviceRecord } from './checkpoint';
import type { DriverConfig } from './claim-config';
import type { DeviceRequestAllocationResult, ResourceClaim } from './resource-claim';

/** What the library hands the driver's prepare callback for one claim. */
export interface PrepareInput {
  /** The ResourceClaim as read from the API server (UID and allocation checked). */
  readonly claim: ResourceClaim;
  /** This driver's allocation results. */
  readonly results: readonly DeviceRequestAllocationResult[];
  /** This driver's opaque configs as `decodeConfig` made them, in claim order (class configs first; later win). */
  readonly config: readonly DriverConfig[];
}

/** One device the driver prepared. */
export interface PreparedDevice {
  /** The claim requests it serves (empty: all); a prioritized-list `main/sub` is answered as `main`. */
  readonly requestNames: readonly string[];
  readonly poolName: string;
  readonly deviceName: string;
  /**
   * Everything a container needs for this device (device nodes, mounts, its own environment): the library puts
   * them into the claim's CDI spec as the device `<claimUID>-<device>` and answers its CDI ID first. A container
   * naming one request gets only its devices, so nothing is shared across a claim's devices; environment of
   * several devices must compose (distinct names, or the same value).
   */
  readonly containerEdits?: CdiContainerEdits | undefined;
  /** Further fully qualified CDI IDs the driver owns (e.g. from a static spec). */
  readonly cdiDeviceIds?: readonly string[] | undefined;
  /** The share this device is (devices that allow several allocations). */
  readonly shareId?: string | undefined;
}

/** What the driver's prepare callback returns for one claim. */
export interface PrepareOutput {
  readonly devices: readonly PreparedDevice[];
}

/** What the driver's unprepare callback gets: the claim as checkpointed (it may be gone from the API server). */
export interface UnprepareInput {
  readonly claim: ClaimRef;
  readonly devices: readonly PreparedDeviceRecord[];
  readonly results: readonly DeviceRequestAllocationResult[];
  /** `PrepareStarted`: a prepare failed or was cut short; undo whatever part of it happened. */
  readonly state: PreparedClaimRecord['state'];
}

/** The device-specific work of a DRA driver; everything else (checks, CDI, checkpoint) is the library's. */
export interface DraDriver {
  /**
   * Decodes the `opaque.parameters` of a configuration entry for this driver; throw to fail the claim (the
   * message is prefixed with the entry's field). Without it the driver takes no configuration: any opaque entry
   * for it fails the claim.
   */
  decodeConfig?(parameters: unknown): unknown;
  /** Prepares one claim's devices; throw to fail that claim (the message reaches the pod's events). */
  prepare(input: PrepareInput): Promise<PrepareOutput>;
  /** Undoes a prepare; optional. Throw to fail the unprepare (the kubelet retries). */
  unprepare?(input: UnprepareInput): Promise<void>;
}
