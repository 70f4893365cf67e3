import type { SysfsFixture } from '@kdp/topology/testing';
import { writeDevNode } from './dev-node';

/** One NVIDIA GPU of the sample node. */
export interface SampleNvidiaGpu {
  readonly address: string;
  readonly rootPort: string;
  readonly numaNode: number;
  readonly uuid: string;
  readonly minor: number;
}

/** The NVIDIA GPUs: one H100 per socket. */
export const NVIDIA_GPUS: readonly SampleNvidiaGpu[] = [
  {
    address: '0000:17:00.0',
    rootPort: '0000:16:01.0',
    numaNode: 0,
    uuid: 'GPU-3f1c6b2a-9d0e-4c51-8a7e-0b6f2d9e1a01',
    minor: 0,
  },
  {
    address: '0000:99:00.0',
    rootPort: '0000:98:01.0',
    numaNode: 1,
    uuid: 'GPU-c81e0f5d-6b4a-4d27-b3f9-8e1d6a2c4f03',
    minor: 1,
  },
];

/** The AMD GPU: an MI210 on socket 0, KFD node 2, DRM card0 / renderD128. */
export const AMD_GPU = { address: '0000:18:00.0', rootPort: '0000:16:02.0', numaNode: 0 } as const;

const H100 = 'NVIDIA H100 80GB HBM3';

/**
 * NVIDIA GPUs as the driver shows them without NVML: PCI functions bound to `nvidia`,
 * `/proc/driver/nvidia/gpus/<bdf>/information`, `/dev/nvidia<minor>` and the shared control nodes.
 */
export function addNvidiaGpus(
  fixture: SysfsFixture,
  rootPort: (address: string, numaNode: number) => void,
): void {
  for (const gpu of NVIDIA_GPUS) {
    rootPort(gpu.rootPort, gpu.numaNode);
    fixture.addPciDevice({
      address: gpu.address,
      parent: gpu.rootPort,
      vendor: '0x10de',
      device: '0x2330',
      subsystemVendor: '0x10de',
      subsystemDevice: '0x16c1',
      class: '0x030200',
      revision: '0xa1',
      driver: 'nvidia',
      numaNode: gpu.numaNode,
      iommuGroup: 30 + gpu.minor,
    });
    fixture.writeProc(`driver/nvidia/gpus/${gpu.address}/information`, nvidiaInformation(gpu));
    fixture.writeProc(`driver/nvidia/gpus/${gpu.address}/registry`, 'Binary: ""\n');
    writeDevNode(fixture.devRoot, `/dev/nvidia${gpu.minor}`, 195, gpu.minor);
  }
  writeDevNode(fixture.devRoot, '/dev/nvidiactl', 195, 255);
  writeDevNode(fixture.devRoot, '/dev/nvidia-modeset', 195, 254);
  writeDevNode(fixture.devRoot, '/dev/nvidia-uvm', 508, 0);
  writeDevNode(fixture.devRoot, '/dev/nvidia-uvm-tools', 508, 1);
  fixture.writeProc(
    'driver/nvidia/version',
    'NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\n',
  );
}

/** An AMD GPU as amdgpu and KFD show it: PCI function, KFD topology (two CPU nodes, one GPU node), DRM nodes. */
export function addAmdGpu(
  fixture: SysfsFixture,
  rootPort: (address: string, numaNode: number) => void,
): void {
  const { address } = AMD_GPU;
  rootPort(AMD_GPU.rootPort, AMD_GPU.numaNode);
  fixture.addPciDevice({
    address,
    parent: AMD_GPU.rootPort,
    vendor: '0x1002',
    device: '0x740f',
    subsystemDevice: '0x0c34',
    class: '0x038000',
    revision: '0x02',
    driver: 'amdgpu',
    numaNode: AMD_GPU.numaNode,
    iommuGroup: 40,
    attributes: { product_name: 'AMD Instinct MI210' },
  });
  const nodes = 'devices/virtual/kfd/kfd/topology/nodes';
  for (const cpuNode of [0, 1]) {
    fixture.write(`${nodes}/${cpuNode}/gpu_id`, '0\n');
    fixture.write(
      `${nodes}/${cpuNode}/properties`,
      'cpu_cores_count 16\nsimd_count 0\nlocation_id 0\ndrm_render_minor 0\n',
    );
  }
  const [domain, bus, devfn] = address.split(':') as [string, string, string];
  const [device, fn] = devfn.split('.') as [string, string];
  const location = (parseInt(bus, 16) << 8) | (parseInt(device, 16) << 3) | parseInt(fn, 10);
  fixture.write(`${nodes}/2/gpu_id`, '3222\n');
  fixture.write(`${nodes}/2/name`, 'gfx90a\n');
  fixture.write(
    `${nodes}/2/properties`,
    [
      'cpu_cores_count 0',
      'simd_count 416',
      'vendor_id 4098',
      'device_id 29711',
      `location_id ${location}`,
      `domain ${parseInt(domain, 16)}`,
      'drm_render_minor 128',
      '',
    ].join('\n'),
  );
  fixture.write(`${nodes}/2/io_links/0/properties`, 'type 2\nnode_from 2\nnode_to 0\nweight 20\n');
  fixture.linkTo('class/kfd/kfd', 'devices/virtual/kfd/kfd');
  writeDevNode(fixture.devRoot, '/dev/kfd', 511, 0);
  for (const [name, minor] of [
    ['card0', 0],
    ['renderD128', 128],
  ] as const) {
    fixture.addClassDevice('drm', name, { pciAddress: address, subdir: 'drm', dev: `226:${minor}` });
    writeDevNode(fixture.devRoot, `/dev/dri/${name}`, 226, minor);
  }
}

function nvidiaInformation(gpu: SampleNvidiaGpu): string {
  return [
    `Model: \t\t ${H100}`,
    'IRQ:   \t\t 0',
    `GPU UUID: \t ${gpu.uuid}`,
    'Video BIOS: \t 96.00.99.00.01',
    'Bus Type: \t PCIe',
    'DMA Size: \t 52 bits',
    'DMA Mask: \t 0xfffffffffffff',
    `Bus Location: \t ${gpu.address}`,
    `Device Minor: \t ${gpu.minor}`,
    'GPU Firmware: \t 550.90.07',
    'GPU Excluded:\t No',
    '',
  ].join('\n');
}
