import type { ChangeProbe } from '@kdp/core/plugin';
import type { GpuScan } from './gpu';

const NVIDIA = '0x10de';
const AMD = '0x1002';
const INTEL = '0x8086';

/**
 * What can change the advertised GPUs in sysfs and procfs, from the last scan (device nodes are watched with
 * inotify instead): the PCI function list (a GPU added or gone), each candidate's driver link (bound, unbound)
 * and, for AMD and Intel, its DRM class directory; an Intel PF's `sriov_numvfs`; the KFD topology nodes and the
 * compute and memory partition modes (AMD);
 * the NVIDIA GPUs under /proc/driver/nvidia/gpus and the MIG instance directories the scan listed.
 */
export function gpuChangeProbe(scan: GpuScan): ChangeProbe {
  const pci = (address: string, file: string): string => `bus/pci/devices/${address}/${file}`;
  const vendors = new Set(scan.candidates.map((candidate) => candidate.vendor));
  const drm = scan.candidates.filter((candidate) => candidate.vendor !== NVIDIA);
  return {
    sysfs: {
      list: [
        'bus/pci/devices',
        ...drm.map((candidate) => pci(candidate.address, 'drm')),
        ...(vendors.has(AMD) ? ['class/kfd', 'class/kfd/kfd/topology/nodes'] : []),
      ],
      links: scan.candidates.map((candidate) => pci(candidate.address, 'driver')),
      read: [
        ...scan.candidates
          .filter((candidate) => candidate.vendor === INTEL && candidate.sriov)
          .map((candidate) => pci(candidate.address, 'sriov_numvfs')),
        // MI300-class compute and memory partitioning (absent elsewhere: read as missing, which never changes).
        ...scan.candidates
          .filter((candidate) => candidate.vendor === AMD)
          .flatMap((candidate) => [
            pci(candidate.address, 'current_compute_partition'),
            pci(candidate.address, 'current_memory_partition'),
          ]),
      ],
    },
    ...(vendors.has(NVIDIA) ? { procfs: { list: ['driver/nvidia/gpus', ...scan.procfsDirs] } } : {}),
  };
}
