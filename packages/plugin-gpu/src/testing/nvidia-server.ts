import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { addNvidiaControlNodes, migMinorsTable } from './driver-files';
import { addNvidiaGpu } from './pci-gpus';

/** The PCI address of GPU `index` of {@link buildNvidiaServer}: buses 0x10… on NUMA 0, 0x90… on NUMA 1. */
export function nvidiaServerAddress(index: number, gpus = 8): string {
  const half = Math.ceil(gpus / 2);
  const bus = index < half ? 0x10 + index : 0x90 + index - half;
  return `0000:${bus.toString(16).padStart(2, '0')}:00.0`;
}

/** The UUID of GPU `index` of {@link buildNvidiaServer}. */
export function nvidiaServerUuid(index: number): string {
  return `GPU-00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`;
}

/**
 * A 2-socket server with `gpus` whole H100s (default 8, as a DGX/HGX node), the first half on NUMA 0 and the
 * rest on NUMA 1, each behind a switch port of its socket's root port, GPU `i` with minor `i`; plus the
 * control nodes and the MIG minors table (no MIG instances). The benchmark's scale point.
 */
export function buildNvidiaServer(gpus = 8): SysfsFixture {
  const fixture = createSysfsFixture();
  fixture.addNumaNode({ id: 0, cpus: '0-55', distances: [10, 21] });
  fixture.addNumaNode({ id: 1, cpus: '56-111', distances: [21, 10] });
  const bridge = { vendor: '0x8086', class: '0x060400', driver: 'pcieport', device: '0x352a' };
  fixture.addPciDevice({ address: '0000:00:01.0', ...bridge, numaNode: 0 });
  fixture.addPciDevice({ address: '0000:80:01.0', ...bridge, numaNode: 1 });
  addNvidiaControlNodes(fixture);
  for (let index = 0; index < gpus; index++) {
    const numaNode = index < Math.ceil(gpus / 2) ? 0 : 1;
    addNvidiaGpu(fixture, {
      address: nvidiaServerAddress(index, gpus),
      parent: numaNode === 0 ? '0000:00:01.0' : '0000:80:01.0',
      numaNode,
      uuid: nvidiaServerUuid(index),
      minor: index,
    });
  }
  fixture.writeProc('driver/nvidia-caps/mig-minors', migMinorsTable());
  return fixture;
}
