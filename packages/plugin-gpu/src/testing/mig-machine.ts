import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SysfsFixture } from '@kdp/topology/testing';
import { addMigInstance } from './driver-files';
import type { FakeNvmlGpu, FakeNvmlMig } from './fake-nvml';
import { buildNvidiaServer, nvidiaServerAddress, nvidiaServerUuid } from './nvidia-server';

/** The GPUs of {@link buildMigMachine}: UUID and PCI address by role. */
export const MIG_MACHINE = {
  /** H100 (minor 0, NUMA 0) in MIG mode: gi1 = 3g.40gb, gi7 and gi8 = 1g.10gb, one compute instance each. */
  mixed: { uuid: nvidiaServerUuid(0), address: nvidiaServerAddress(0, 3) },
  /** H100 (minor 1, NUMA 0): the whole GPU. */
  whole: { uuid: nvidiaServerUuid(1), address: nvidiaServerAddress(1, 3) },
  /** H100 (minor 2, NUMA 1) in MIG mode: gi2 = 3g.40gb split into two 1c.3g.40gb compute instances. */
  split: { uuid: nvidiaServerUuid(2), address: nvidiaServerAddress(2, 3) },
} as const;

/** The MIG UUID the fake NVML gives GPU `gpu`'s instance gi/ci. */
export function migMachineUuid(gpu: number, gi: number, ci: number): string {
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  return `MIG-${hex(gpu, 8)}-${hex(gi, 4)}-4${hex(ci, 3)}-8000-00000000cafe`;
}

/** A MIG device for the fake NVML (H100 80GB sizes: 1g = 10 GB, 3g = 40 GB, 7g = 80 GB), its GPU instance at `start`. */
export function h100Mig(
  gpu: number,
  gi: number,
  ci: number,
  slices: 1 | 3 | 7,
  ciSlices = slices,
  start = 0,
): FakeNvmlMig {
  // NVML_GPU_INSTANCE_PROFILE_1_SLICE = 0, _3_SLICE = 2, _7_SLICE = 4.
  const profile = { 1: [0, 9984], 3: [2, 40_448], 7: [4, 80_896] }[slices];
  return {
    uuid: migMachineUuid(gpu, gi, ci),
    gpuInstanceId: gi,
    computeInstanceId: ci,
    giProfile: profile[0] as number,
    giSlices: slices,
    ciSlices,
    memorySizeMB: profile[1] as number,
    start,
  };
}

/** H100 80GB memory as NVML reports it. */
const H100_MIB = 81_559;

/** What the fake NVML reports for {@link buildMigMachine} (MIG devices in NVML index order). */
export function migMachineNvml(): [FakeNvmlGpu, FakeNvmlGpu, FakeNvmlGpu] {
  return [
    {
      uuid: MIG_MACHINE.mixed.uuid,
      memoryMiB: H100_MIB,
      migMode: true,
      migs: [h100Mig(0, 1, 0, 3), h100Mig(0, 7, 0, 1, 1, 4), h100Mig(0, 8, 0, 1, 1, 5)],
    },
    { uuid: MIG_MACHINE.whole.uuid, memoryMiB: H100_MIB, migMode: false },
    {
      uuid: MIG_MACHINE.split.uuid,
      memoryMiB: H100_MIB,
      migMode: true,
      migs: [h100Mig(2, 2, 0, 3, 1), h100Mig(2, 2, 1, 3, 1)],
    },
  ];
}

/**
 * Three H100s (as {@link buildNvidiaServer}), two in MIG mode with profiles of different kinds (see
 * {@link MIG_MACHINE}); {@link migMachineNvml} is what NVML reports for it.
 */
export function buildMigMachine(): SysfsFixture {
  const fixture = buildNvidiaServer(3);
  addMigInstance(fixture, 0, 1, [0]);
  addMigInstance(fixture, 0, 7, [0]);
  addMigInstance(fixture, 0, 8, [0]);
  addMigInstance(fixture, 2, 2, [0, 1]);
  return fixture;
}

/** Destroys a GPU instance in procfs (its /dev/nvidia-caps nodes stay, as the driver leaves them). */
export function removeMigInstance(fixture: SysfsFixture, gpuMinor: number, gi: number): void {
  rmSync(join(fixture.procRoot, `driver/nvidia/capabilities/gpu${gpuMinor}/mig/gi${gi}`), {
    recursive: true,
  });
}
