import { createCdiSpecWriter, type CdiContainerEdits, type CdiDevice, type CdiSpecWriter } from '@kdp/core';
import { checkAllocation, type ClaimRef, type NodeIdentity } from './check-allocation';
import type { Checkpoint, PreparedClaimRecord, PreparedDeviceRecord } from './checkpoint';
import type { ClaimReader } from './claim-reader';
import type {
  DeviceAllocationConfiguration,
  DeviceRequestAllocationResult,
  ResourceClaim,
} from './resource-claim';

/** What the library hands the driver's prepare callback for one claim. */
export interface PrepareInput {
  /** The ResourceClaim as read from the API server (UID and allocation checked). */
  readonly claim: ResourceClaim;
  /** This driver's allocation results. */
  readonly results: readonly DeviceRequestAllocationResult[];
  /** This driver's opaque configs, in claim order (class configs first; later entries win). */
  readonly config: readonly DeviceAllocationConfiguration[];
}

/** One device the driver prepared. */
export interface PreparedDevice {
  /** The claim requests it serves (empty: all). */
  readonly requestNames: readonly string[];
  readonly poolName: string;
  readonly deviceName: string;
  /** Container edits for this device: the library puts them into the claim's CDI spec and adds that CDI ID. */
  readonly containerEdits?: CdiContainerEdits | undefined;
  /** Further fully qualified CDI IDs the driver owns (e.g. from a static spec). */
  readonly cdiDeviceIds?: readonly string[] | undefined;
  /** The share this device is (devices that allow several allocations). */
  readonly shareId?: string | undefined;
}

/** What the driver's prepare callback returns for one claim. */
export interface PrepareOutput {
  readonly devices: readonly PreparedDevice[];
  /** Edits for every container that gets any device of the claim (a CDI device of its own, on every device). */
  readonly containerEdits?: CdiContainerEdits | undefined;
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
  /** Prepares one claim's devices; throw to fail that claim (the message reaches the pod's events). */
  prepare(input: PrepareInput): Promise<PrepareOutput>;
  /** Undoes a prepare; optional. Throw to fail the unprepare (the kubelet retries). */
  unprepare?(input: UnprepareInput): Promise<void>;
}

/** CDI settings of the per-claim spec files. */
export interface ClaimCdiOptions {
  /** `--cdi-dir` [/var/run/cdi]. */
  readonly dir: string;
  /** CDI vendor; default the driver name. */
  readonly vendor?: string | undefined;
  /** CDI class; default `claim`. */
  readonly class?: string | undefined;
}

/** Options for {@link createClaimPreparer}. */
export interface ClaimPreparerOptions extends NodeIdentity {
  readonly driverName: string;
  readonly driver: DraDriver;
  readonly claims: ClaimReader;
  readonly checkpoint: Checkpoint;
  readonly cdi: ClaimCdiOptions;
}

/** A per-claim outcome: devices, or the error message. */
export type ClaimOutcome =
  | { readonly devices: readonly PreparedDeviceRecord[]; readonly error?: undefined }
  | { readonly error: string; readonly devices?: undefined };

/** Prepares and unprepares claims one call at a time, with the kubelet's rules. */
export interface ClaimPreparer {
  /** Loads the checkpoint; call once before the first prepare. */
  load(): ReturnType<Checkpoint['load']>;
  /** Answers every claim (by UID), each with its devices or its own error; never rejects for one claim. */
  prepare(claims: readonly ClaimRef[]): Promise<Map<string, ClaimOutcome>>;
  /** Answers every claim (by UID) with '' or its error; an unknown claim succeeds. */
  unprepare(claims: readonly ClaimRef[]): Promise<Map<string, string>>;
  /** The claims currently prepared or being prepared, by UID. */
  prepared(): ReadonlyMap<string, PreparedClaimRecord>;
}

/**
 * Creates the claim preparer: calls run one at a time (a second waits for the first); prepare of a checkpointed
 * claim returns its devices again and re-writes its CDI spec if missing (after a reboot); otherwise the claim is
 * read, checked ({@link checkAllocation}), guarded against a device already prepared for another claim, marked
 * `PrepareStarted`, handed to the driver, its CDI spec written, and marked `PrepareCompleted`.
 */
export function createClaimPreparer(options: ClaimPreparerOptions): ClaimPreparer {
  const { driverName, driver, checkpoint } = options;
  const vendor = options.cdi.vendor ?? driverName;
  const cdiClass = options.cdi.class ?? 'claim';
  let state = new Map<string, PreparedClaimRecord>();
  let tail: Promise<unknown> = Promise.resolve();

  const serialize = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };

  const writerFor = (uid: string): CdiSpecWriter =>
    createCdiSpecWriter({ dir: options.cdi.dir, vendor, class: cdiClass, instance: uid });

  const writeCdi = async (record: PreparedClaimRecord): Promise<void> => {
    if (record.cdi === undefined || record.cdi.devices.length === 0) return;
    await writerFor(record.uid).write(record.cdi.devices, record.cdi.containerEdits);
  };

  const describe = (ref: ClaimRef): string => `${ref.namespace}/${ref.name} (${ref.uid})`;

  const checkRef = (ref: ClaimRef): void => {
    for (const field of ['namespace', 'name', 'uid'] as const)
      if (typeof ref[field] !== 'string' || ref[field] === '') throw new Error(`claim ${field} is empty`);
  };

  const sameClaim = (ref: ClaimRef, record: PreparedClaimRecord): void => {
    if (record.namespace !== ref.namespace || record.name !== ref.name)
      throw new Error(`claim UID ${ref.uid} was prepared as ${record.namespace}/${record.name}`);
  };

  /** The exclusive devices of `results` that another claim holds. */
  const conflict = (uid: string, results: readonly DeviceRequestAllocationResult[]): string | undefined => {
    for (const result of results) {
      if (result.adminAccess === true || result.shareID !== undefined) continue;
      for (const other of state.values()) {
        if (other.uid === uid) continue;
        const held = other.results.find(
          (r) =>
            r.pool === result.pool &&
            r.device === result.device &&
            r.adminAccess !== true &&
            r.shareID === undefined,
        );
        if (held !== undefined)
          return `device ${result.pool}/${result.device} is already prepared for claim ${describe(other)}`;
      }
    }
    return undefined;
  };

  const buildRecord = (
    ref: ClaimRef,
    results: readonly DeviceRequestAllocationResult[],
    output: PrepareOutput,
  ): PreparedClaimRecord => {
    const allocated = new Set(results.map((r) => `${r.pool}\0${r.device}`));
    const cdiDevices: CdiDevice[] = [];
    const names = new Set<string>();
    const qualified = (name: string): string => `${vendor}/${cdiClass}=${name}`;
    const claimWide =
      output.containerEdits !== undefined ? qualified(uniqueName(`${ref.uid}-claim`, names)) : undefined;
    if (claimWide !== undefined && output.containerEdits !== undefined)
      cdiDevices.push({
        name: claimWide.slice(claimWide.indexOf('=') + 1),
        containerEdits: output.containerEdits,
      });
    const devices = output.devices.map((device): PreparedDeviceRecord => {
      if (!allocated.has(`${device.poolName}\0${device.deviceName}`))
        throw new Error(
          `driver returned device ${device.poolName}/${device.deviceName}, which is not allocated to the claim`,
        );
      const ids = [...(device.cdiDeviceIds ?? [])];
      if (device.containerEdits !== undefined) {
        const name = uniqueName(`${ref.uid}-${device.deviceName}`, names);
        cdiDevices.push({ name, containerEdits: device.containerEdits });
        ids.push(qualified(name));
      }
      if (claimWide !== undefined) ids.push(claimWide);
      return {
        requestNames: [...device.requestNames],
        poolName: device.poolName,
        deviceName: device.deviceName,
        cdiDeviceIds: ids,
        ...(device.shareId !== undefined ? { shareId: device.shareId } : {}),
      };
    });
    return {
      ...ref,
      state: 'PrepareCompleted',
      results,
      devices,
      ...(cdiDevices.length > 0 ? { cdi: { devices: cdiDevices } } : {}),
    };
  };

  interface Pending {
    readonly ref: ClaimRef;
    readonly input: PrepareInput;
  }

  /** Phase 1 of one claim: its checkpointed devices, or the checked claim the driver must prepare. */
  const checkOne = async (ref: ClaimRef): Promise<ClaimOutcome | Pending> => {
    checkRef(ref);
    const existing = state.get(ref.uid);
    if (existing !== undefined) sameClaim(ref, existing);
    if (existing?.state === 'PrepareCompleted') {
      await writeCdi(existing);
      return { devices: existing.devices };
    }
    const claim = await options.claims.get(ref.namespace, ref.name);
    const { results, config } = checkAllocation(claim, ref, driverName, options);
    const clash = conflict(ref.uid, results);
    if (clash !== undefined) throw new Error(clash);
    state.set(ref.uid, { ...ref, state: 'PrepareStarted', results, devices: [] });
    return { ref, input: { claim: claim as ResourceClaim, results, config } };
  };

  /** Phase 2 of one claim: the driver's work, the CDI spec, the completed record. */
  const finishOne = async ({ ref, input }: Pending): Promise<ClaimOutcome> => {
    const output = await driver.prepare(input);
    const record = buildRecord(ref, input.results, output);
    await writeCdi(record);
    state.set(ref.uid, record);
    return { devices: record.devices };
  };

  const unprepareOne = async (ref: ClaimRef): Promise<void> => {
    checkRef(ref);
    const record = state.get(ref.uid);
    if (record !== undefined) {
      await driver.unprepare?.({
        claim: { namespace: record.namespace, name: record.name, uid: record.uid },
        devices: record.devices,
        results: record.results,
        state: record.state,
      });
    }
    await writerFor(ref.uid).remove();
    state.delete(ref.uid);
  };

  return {
    async load() {
      const loaded = await checkpoint.load();
      state = loaded.claims;
      return loaded;
    },
    prepare: (claims) =>
      serialize(async () => {
        const outcomes = new Map<string, ClaimOutcome>();
        const pending: Pending[] = [];
        const failed = (ref: ClaimRef, error: unknown): ClaimOutcome => ({
          error: `prepare ResourceClaim ${describe(ref)}: ${message(error)}`,
        });
        const before = new Map(state);
        for (const ref of claims) {
          if (outcomes.has(ref.uid)) continue;
          try {
            const checked = await checkOne(ref);
            if ('input' in checked) pending.push(checked);
            else outcomes.set(ref.uid, checked);
          } catch (error) {
            outcomes.set(ref.uid, failed(ref, error));
          }
        }
        // The claims the driver works on are on disk as PrepareStarted first (one write for the batch), so a
        // crash in the middle leaves a record that a later unprepare cleans up.
        if (pending.length > 0) {
          try {
            await checkpoint.save(state);
          } catch (error) {
            for (const { ref } of pending) {
              const previous = before.get(ref.uid);
              if (previous !== undefined) state.set(ref.uid, previous);
              else state.delete(ref.uid);
              outcomes.set(ref.uid, failed(ref, new Error(`checkpoint not written: ${message(error)}`)));
            }
            return outcomes;
          }
        }
        for (const item of pending) {
          try {
            outcomes.set(item.ref.uid, await finishOne(item));
          } catch (error) {
            outcomes.set(item.ref.uid, failed(item.ref, error));
          }
        }
        if (pending.length > 0 || !sameState(before, state)) {
          try {
            await checkpoint.save(state);
          } catch (error) {
            // Prepared but not durable: fail these claims so the kubelet asks again (answered from memory).
            for (const { ref } of pending)
              outcomes.set(ref.uid, failed(ref, new Error(`checkpoint not written: ${message(error)}`)));
          }
        }
        return outcomes;
      }),
    unprepare: (claims) =>
      serialize(async () => {
        const errors = new Map<string, string>();
        const before = new Map(state);
        for (const ref of claims) {
          if (errors.has(ref.uid)) continue;
          try {
            await unprepareOne(ref);
            errors.set(ref.uid, '');
          } catch (error) {
            errors.set(ref.uid, `unprepare ResourceClaim ${describe(ref)}: ${message(error)}`);
          }
        }
        if (!sameState(before, state)) {
          try {
            await checkpoint.save(state);
          } catch (error) {
            for (const ref of claims)
              if (before.has(ref.uid))
                errors.set(
                  ref.uid,
                  `unprepare ResourceClaim ${describe(ref)}: checkpoint not written: ${message(error)}`,
                );
          }
        }
        return errors;
      }),
    prepared: () => state,
  };
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i += 1) name = `${base}-${i}`;
  taken.add(name);
  return name;
}

function sameState(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): boolean {
  return a.size === b.size && [...a].every(([key, value]) => b.get(key) === value);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
