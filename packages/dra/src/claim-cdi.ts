import { createCdiSpecWriter, type CdiSpecWriter } from '@kdp/core';
import type { PreparedClaimRecord } from './checkpoint';

/** CDI settings of the per-claim spec files. */
export interface ClaimCdiOptions {
  /** `--cdi-dir` [/var/run/cdi]. */
  readonly dir: string;
  /** CDI vendor; default the driver name. */
  readonly vendor?: string | undefined;
  /** CDI class; default `claim`. */
  readonly class?: string | undefined;
}

/** The per-claim CDI spec files: one per claim UID, holding the CDI devices of its record. */
export interface ClaimCdi {
  /** The fully qualified CDI ID of a device name (`gpu.kdp.dev/claim=<name>`). */
  qualify(name: string): string;
  /** Writes the claim's spec; a record without CDI devices has none. */
  write(record: PreparedClaimRecord): Promise<void>;
  /** Removes the claim's spec, if any. */
  remove(uid: string): Promise<void>;
}

/** Creates the per-claim CDI spec files of a driver (vendor default the driver name, class `claim`). */
export function createClaimCdi(options: ClaimCdiOptions, driverName: string): ClaimCdi {
  const vendor = options.vendor ?? driverName;
  const cdiClass = options.class ?? 'claim';
  const writerFor = (uid: string): CdiSpecWriter =>
    createCdiSpecWriter({ dir: options.dir, vendor, class: cdiClass, instance: uid });
  return {
    qualify: (name) => `${vendor}/${cdiClass}=${name}`,
    async write(record) {
      if (record.cdi === undefined || record.cdi.devices.length === 0) return;
      await writerFor(record.uid).write(record.cdi.devices);
    },
    remove: (uid) => writerFor(uid).remove(),
  };
}
