// Test helpers of @kdp/plugin-gpu (`@kdp/plugin-gpu/testing`): fixture machines with NVIDIA, AMD and Intel
// GPUs, the driver files they are built from, and shortcuts for this package's specs, the demo and e2e.
export {
  AMD_GPUS,
  buildAmdMachine,
  buildIntelMachine,
  buildNvidiaMachine,
  INTEL_GPUS,
  NVIDIA_UUIDS,
} from './machines';
export {
  addDrmNodes,
  addKfdCpuNode,
  addKfdGpuNode,
  addMigInstance,
  addNvidiaControlNodes,
  addNvidiaGpuFiles,
  linkKfd,
  migMinor,
  migMinorsTable,
  nvidiaInformation,
} from './driver-files';
export { fixtureDevices, fixtureHost, gpuConfig, rootFlags } from './fixture-devices';
export { buildMi300xMachine, MI300X_GPUS, MI300X_PARTITIONS, mi300xPartitionId } from './amd-machines';
export type { Mi300xMachineOptions, Mi300xModes } from './amd-machines';
export { addAmdGpu, addNvidiaGpu } from './pci-gpus';
export type { GpuSlot } from './pci-gpus';
export { bindDriver, replugGpu, unbindDriver, unplugGpu } from './hot-plug';
export { buildNvidiaServer, nvidiaServerAddress, nvidiaServerUuid } from './nvidia-server';
export {
  buildMigMachine,
  h100Mig,
  MIG_MACHINE,
  migMachineNvml,
  migMachineUuid,
  removeMigInstance,
} from './mig-machine';
export { buildFakeNvml, fakeNvmlLayout } from './fake-nvml';
export type { FakeNvml, FakeNvmlGpu, FakeNvmlMig, FakeNvmlOptions } from './fake-nvml';
