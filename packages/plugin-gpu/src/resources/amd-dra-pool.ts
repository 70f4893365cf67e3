import type { DraCounterConsumption, DraCounterSet, DraPool, DraPoolDevice, PluginDevice } from '@kdp/core';
import type { Gpu } from '../scan/gpu';
import type { GpuPayload } from './gpu-payload';

/** The counter of a GPU's compute dies (XCCs): 8 on an MI300X, whatever its compute partition mode. */
export const XCC_COUNTER = 'xcc';
/** The counter of a GPU's memory partitions: its NPS mode's (1 in NPS1, 4 in NPS4). */
export const MEMORY_COUNTER = 'memory-partitions';
/** The attribute telling a whole GPU (`gpu`) from one of its compute partitions (`partition`) under DRA. */
export const SCOPE_ATTRIBUTE = 'scope';

/** The counter set of one GPU: `gpu-` and its PCI address as a DNS label (`gpu-0000-05-00-0`). */
export function amdCounterSetName(pciAddress: string): string {
  return `gpu-${pciAddress.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}

/** The device ID of a partitioned GPU as a whole: its PCI address and `-all` (its first partition has the address). */
export function amdWholeGpuId(pciAddress: string): string {
  return `${pciAddress}-all`;
}

/** `a / b` as a quantity: an integer, else in thousandths rounded down, so that the shares never exceed the whole. */
function share(a: number, b: number): string | number {
  return a % b === 0 ? a / b : `${Math.floor((a * 1000) / b)}m`;
}

/** The memory partitions of a memory mode (`NPS4` → 4); 1 when unknown. */
function memoryPartitions(gpu: Gpu): number {
  const match = /^NPS(\d)$/.exec(gpu.partitionModes?.memory ?? '');
  return match === null ? 1 : Number(match[1]);
}

const isPartitionable = (device: PluginDevice<GpuPayload>): boolean =>
  device.payload?.gpu.kind === 'amd' &&
  device.payload.gpu.partitionModes?.compute !== undefined &&
  device.payload.replica === undefined;

/** One GPU's devices (its compute partitions, or the GPU alone in SPX) as DRA devices and its counter set. */
function gpuPool(devices: readonly PluginDevice<GpuPayload>[]): {
  devices: DraPoolDevice<GpuPayload>[];
  counterSet: DraCounterSet;
} {
  const gpus = devices.map((device) => device.payload?.gpu as Gpu);
  const first = gpus[0] as Gpu;
  const name = amdCounterSetName(first.pciAddress);
  const xccs = gpus.reduce((sum, gpu) => sum + (gpu.xccs ?? 1), 0);
  const memory = memoryPartitions(first);
  const counterSet = { name, counters: { [XCC_COUNTER]: xccs, [MEMORY_COUNTER]: memory } };
  const all: DraCounterConsumption[] = [{ counterSet: name, counters: counterSet.counters }];
  if (devices.length === 1) {
    const [device] = devices as [PluginDevice<GpuPayload>];
    return {
      devices: [
        { ...device, attributes: { ...device.attributes, [SCOPE_ATTRIBUTE]: 'gpu' }, consumesCounters: all },
      ],
      counterSet,
    };
  }
  const partitions = devices.map((device, i) => ({
    ...device,
    attributes: { ...device.attributes, [SCOPE_ATTRIBUTE]: 'partition' },
    consumesCounters: [
      {
        counterSet: name,
        counters: {
          [XCC_COUNTER]: gpus[i]?.xccs ?? 1,
          [MEMORY_COUNTER]: share(memory, devices.length),
        },
      },
    ],
  }));
  const { partition: _one, ...attributes } = first.attributes;
  const problems = [...new Set(gpus.flatMap((gpu) => gpu.problems))];
  const whole: Gpu = {
    ...first,
    id: amdWholeGpuId(first.pciAddress),
    deviceNodes: [...new Set(gpus.flatMap((gpu) => gpu.deviceNodes))],
    attributes: { ...attributes, [SCOPE_ATTRIBUTE]: 'gpu', partitions: String(devices.length) },
    problems,
    xgmiPeers: [...new Set(gpus.flatMap((gpu) => gpu.xgmiPeers))].sort(),
    xccs,
  };
  const base = devices[0] as PluginDevice<GpuPayload>;
  const wholeDevice: DraPoolDevice<GpuPayload> = {
    id: whole.id,
    health: devices.every((device) => device.health === 'Healthy') ? 'Healthy' : 'Unhealthy',
    ...(problems.length > 0 ? { problem: problems.join('; ') } : {}),
    ...(base.numaNodes !== undefined ? { numaNodes: base.numaNodes } : {}),
    ...(base.pciePath !== undefined ? { pciePath: base.pciePath } : {}),
    pciAddress: first.pciAddress,
    attributes: whole.attributes,
    payload: { gpu: whole },
    consumesCounters: all,
  };
  return { devices: [wholeDevice, ...partitions], counterSet };
}

/**
 * The DRA pool of an AMD resource (KEP 4815): each MI300-class GPU (one with partition modes) a counter set of its
 * compute dies (`xcc`, 8 on an MI300X) and memory partitions (`memory-partitions`, its NPS mode's), the GPU as a
 * whole consuming all of it and each compute partition (XCP) its dies and its share of the memory partitions, so
 * that the scheduler never allocates a GPU and one of its partitions at once. The devices follow the current
 * compute × memory mode: in SPX the GPU alone; in DPX/QPX/CPX its partitions as the device-plugin mode advertises
 * them plus the whole GPU (`<address>-all`, every partition's nodes). Other devices (no partition modes, or
 * time-slicing replicas) are published as they are, without counters.
 */
export function amdDraPool(devices: readonly PluginDevice<GpuPayload>[]): DraPool<GpuPayload> {
  const byGpu = new Map<string, PluginDevice<GpuPayload>[]>();
  const out: DraPoolDevice<GpuPayload>[] = [];
  for (const device of devices) {
    const address = device.payload?.gpu.pciAddress;
    if (!isPartitionable(device) || address === undefined) out.push(device);
    else byGpu.set(address, [...(byGpu.get(address) ?? []), device]);
  }
  const sharedCounters: DraCounterSet[] = [];
  for (const group of byGpu.values()) {
    const pool = gpuPool(group);
    out.push(...pool.devices);
    sharedCounters.push(pool.counterSet);
  }
  return { devices: out, sharedCounters };
}
