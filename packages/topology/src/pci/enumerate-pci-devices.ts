import type { Sysfs } from '../sysfs/create-sysfs';
import { readNumaTopology } from '../numa/read-numa-topology';
import type { NumaTopology } from '../numa/read-numa-topology';
import { readPciDevice } from './read-pci-device';
import type { PciDevice, PciIdentity } from './read-pci-device';

/** Options of `enumeratePciDevices`. */
export interface PciEnumerationOptions {
  /** NUMA layout for the local_cpulist fallback; read from the same sysfs when omitted. */
  readonly numa?: NumaTopology;
  /** Devices read interleaved; default 8. */
  readonly concurrency?: number;
  /**
   * Which functions are read in full, by their vendor, class and driver (read first); default all. A refused
   * function costs three reads instead of about twelve, and is left out of `devices`.
   */
  readonly select?: (identity: PciIdentity) => boolean;
}

/** Every readable (and selected) PCI function, sorted by address, with the warnings of the scan (NUMA's too). */
export interface PciEnumeration {
  readonly devices: readonly PciDevice[];
  readonly numa: NumaTopology;
  readonly warnings: readonly string[];
}

/** Enumerates /sys/bus/pci/devices; never throws: unreadable devices are skipped with a warning. */
export async function enumeratePciDevices(
  sysfs: Sysfs,
  options: PciEnumerationOptions = {},
): Promise<PciEnumeration> {
  const numa = options.numa ?? (await readNumaTopology(sysfs));
  const names = await sysfs.list('bus/pci/devices');
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const results = new Array<Awaited<ReturnType<typeof readPciDevice>>>(names.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const index = next++;
      results[index] = await readPciDevice(sysfs, names[index] as string, numa, options.select);
      // The reader's syscalls are synchronous: let timers and sockets run between devices.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, worker));
  const devices: PciDevice[] = [];
  const warnings: string[] = options.numa ? [] : [...numa.warnings];
  for (const result of results) {
    if (result.device) devices.push(result.device);
    warnings.push(...result.warnings);
  }
  return { devices, numa, warnings };
}
