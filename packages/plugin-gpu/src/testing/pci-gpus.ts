import type { PciDeviceSpec, SysfsFixture } from '@kdp/topology/testing';
import { addDrmNodes, addKfdGpuNode, addNvidiaGpuFiles } from './driver-files';

/** Where a GPU's PCI function sits in a fixture machine. */
export interface GpuSlot {
  /** Domain:bus:device.function, e.g. "0000:17:00.0". */
  readonly address: string;
  /** The bridge above it (added before); omitted = directly under the root complex. */
  readonly parent?: string;
  readonly numaNode: number;
  readonly iommuGroup?: number;
}

/** The PCI function of a slot (optional fields left out when absent). */
const pciSlot = ({ address, parent, numaNode, iommuGroup }: GpuSlot): PciDeviceSpec => ({
  address,
  numaNode,
  ...(parent !== undefined ? { parent } : {}),
  ...(iommuGroup !== undefined ? { iommuGroup } : {}),
});

const H100 = { vendor: '0x10de', device: '0x2330', subsystemVendor: '0x10de', subsystemDevice: '0x16c1' };
const MI210 = { vendor: '0x1002', device: '0x740f', subsystemDevice: '0x0c34' };

/**
 * A whole NVIDIA H100 as the driver shows it without NVML: the PCI function bound to `nvidia` plus
 * {@link addNvidiaGpuFiles} (procfs information, `/dev/nvidia<minor>`). Add the shared control nodes once with
 * `addNvidiaControlNodes`.
 */
export function addNvidiaGpu(
  fixture: SysfsFixture,
  gpu: GpuSlot & { readonly uuid: string; readonly minor: number; readonly model?: string },
): void {
  fixture.addPciDevice({ ...pciSlot(gpu), ...H100, class: '0x030200', revision: '0xa1', driver: 'nvidia' });
  addNvidiaGpuFiles(fixture, { ...gpu, model: gpu.model ?? 'NVIDIA H100 80GB HBM3' });
}

/**
 * A whole AMD Instinct MI210 as amdgpu and KFD show it: the PCI function, its KFD topology node
 * ({@link addKfdGpuNode}) and its DRM card and render nodes ({@link addDrmNodes}). Add the KFD CPU nodes with
 * `addKfdCpuNode` and call `linkKfd` once.
 */
export function addAmdGpu(
  fixture: SysfsFixture,
  gpu: GpuSlot & {
    /** Its KFD topology node and `gpu_id`. */
    readonly kfdNode: number;
    readonly gpuId: number;
    /** N of `card<N>` and of `renderD<N>`. */
    readonly card: number;
    readonly render: number;
    readonly links: readonly { readonly to: number; readonly type: number; readonly weight?: number }[];
  },
): void {
  fixture.addPciDevice({
    ...pciSlot(gpu),
    ...MI210,
    class: '0x038000',
    revision: '0x02',
    driver: 'amdgpu',
    attributes: { product_name: 'AMD Instinct MI210' },
  });
  const { address, kfdNode: node, gpuId, render: renderMinor, links } = gpu;
  addKfdGpuNode(fixture, { node, gpuId, address, renderMinor, links });
  addDrmNodes(fixture, address, gpu.card, gpu.render);
}
