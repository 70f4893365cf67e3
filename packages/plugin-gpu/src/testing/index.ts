// Test helpers of @kdp/plugin-gpu (`@kdp/plugin-gpu/testing`): fixture machines with NVIDIA and AMD GPUs and the
// driver files they are built from, for the demo and e2e. This package's own specs import the modules directly.
export { buildNvidiaMachine, NVIDIA_UUIDS } from './machines';
export { addKfdCpuNode, addNvidiaControlNodes, addNvidiaGpuFiles, linkKfd } from './driver-files';
export { rootFlags } from './fixture-devices';
export { addAmdGpu, addNvidiaGpu } from './pci-gpus';
export type { GpuSlot } from './pci-gpus';
export { buildMi300xMachine } from './amd-machines';
// The claim configuration kinds of the DRA driver, from which deploy/ generates its admission policy.
export { gpuConfigKind } from '../dra/gpu-claim-config';
