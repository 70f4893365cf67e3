import type { PluginDevice } from '@kdp/core';
import type { GpuPayload } from '../resources/gpu-payload';
import { amdGpuRecord } from '../testing/amd-machines';
import { preferredAllocation } from './preferred-allocation';

// ROCm/k8s-device-plugin's internal/pkg/allocator/besteffort_policy_test.go, re-typed: its third topology,
// testdata/topo-mi300-cpx (8 MI300X GPUs × 8 CPX partitions, KFD nodes 2–64, so the last partition of GPU 8,
// amdgpu_xcp_63, is not a device), with the device IDs its getTestDevices gives (`test<g>` for a GPU's first
// partition, `amdgpu_xcp_<8·(g-1)+j>` for the others; GPUs 1–4 on NUMA node 0, 5–8 on 1), and its test cases.
// Every KFD io_link between two of these nodes is XGMI (type 11): weight 13 between partitions of one GPU, 41
// between partitions of two (all 3,906 links of the capture, checked when re-typing). A set's cost is the sum of
// those weights over its pairs; ours must never cost more than the set ROCm's allocator returns.

const GPUS = 8;
const PARTITIONS = 8;
const LAST_NODE = 64;
const idOf = (gpu: number, partition: number): string =>
  partition === 0 ? `test${gpu + 1}` : `amdgpu_xcp_${gpu * PARTITIONS + partition}`;
const gpuIds = Array.from({ length: GPUS }, (_, gpu) =>
  Array.from({ length: PARTITIONS }, (_, partition) => partition)
    .filter((partition) => 2 + gpu * PARTITIONS + partition <= LAST_NODE)
    .map((partition) => idOf(gpu, partition)),
);
const gpuOf = new Map(gpuIds.flatMap((ids, gpu) => ids.map((id) => [id, gpu] as const)));
const devices: PluginDevice<GpuPayload>[] = gpuIds.flatMap((ids, gpu) =>
  ids.map((id) => {
    const numa = gpu < GPUS / 2 ? 0 : 1;
    const peers = gpuIds.flatMap((other, g) => (g === gpu ? [] : other));
    return {
      id,
      health: 'Healthy' as const,
      numaNodes: [numa],
      payload: {
        gpu: amdGpuRecord({
          id,
          pciAddress: `0000:${(gpu + 1) * 16}:00.0`,
          numaNodes: [numa],
          xgmiPeers: peers,
        }),
      },
    };
  }),
);

/** The summed KFD link weight of a set of devices (13 within a GPU, 41 across two). */
function linkWeight(ids: readonly string[]): number {
  let sum = 0;
  ids.forEach((a, i) => {
    for (const b of ids.slice(i + 1)) sum += gpuOf.get(a) === gpuOf.get(b) ? 13 : 41;
  });
  return sum;
}

interface BestEffortCase {
  readonly description: string;
  readonly size: number;
  readonly available?: readonly string[];
  readonly required?: readonly string[];
  readonly filtered?: readonly string[];
  /** ROCm's answer, where its test names one. */
  readonly expectedIds?: readonly string[];
}

/** The MI300X CPX cases of TestBestPolicyAllocator, in its order. */
const CASES: readonly BestEffortCase[] = [
  { description: 'Allocate 1 device', size: 1, expectedIds: ['test8'] },
  { description: 'Allocate 3 devices', size: 3, expectedIds: ['test8', 'amdgpu_xcp_57', 'amdgpu_xcp_58'] },
  {
    description: 'Allocate 5 devices',
    size: 5,
    expectedIds: ['test8', 'amdgpu_xcp_57', 'amdgpu_xcp_58', 'amdgpu_xcp_59', 'amdgpu_xcp_60'],
  },
  {
    description: 'Allocate 3 - same numa',
    size: 3,
    available: ['test3', 'test4', 'test5', 'test6', 'test7', 'test8'],
    expectedIds: ['test5', 'test6', 'test7'],
  },
  {
    description: 'Allocate 3 - with required and same numa',
    size: 3,
    available: ['test3', 'test4', 'test5', 'test6', 'test7', 'test8'],
    required: ['test5'],
    expectedIds: ['test5', 'test6', 'test7'],
  },
  { description: 'Allocate 30 devices', size: 30 },
  {
    description: 'Allocate 8 devices',
    size: 8,
    expectedIds: ['test1', ...[1, 2, 3, 4, 5, 6, 7].map((n) => `amdgpu_xcp_${n}`)],
  },
  {
    description: 'Allocate 7 devices',
    size: 7,
    expectedIds: ['test8', ...[57, 58, 59, 60, 61, 62].map((n) => `amdgpu_xcp_${n}`)],
  },
  {
    description: 'Allocate 4 devices',
    size: 4,
    filtered: ['test8', 'amdgpu_xcp_57', 'amdgpu_xcp_58'],
    expectedIds: [59, 60, 61, 62].map((n) => `amdgpu_xcp_${n}`),
  },
  {
    description: 'Allocate 10 devices',
    size: 10,
    filtered: ['test1', 'test2', 'test3', 'test4', 'test8', 'amdgpu_xcp_57'],
    expectedIds: [
      'test5',
      ...[33, 34, 35, 36, 37, 38, 39].map((n) => `amdgpu_xcp_${n}`),
      'amdgpu_xcp_58',
      'amdgpu_xcp_59',
    ],
  },
];

/**
 * The lowest cost any set of `size` devices of `available` can have: with one weight within a GPU and a higher
 * one across, the most pairs within GPUs, i.e. the GPUs with the most devices filled first (must-include aside).
 */
function lowestWeight(available: readonly string[], size: number): number {
  const perGpu = new Map<number | undefined, string[]>();
  for (const id of available) perGpu.set(gpuOf.get(id), [...(perGpu.get(gpuOf.get(id)) ?? []), id]);
  const fullest = [...perGpu.values()].sort((a, b) => b.length - a.length);
  return linkWeight(fullest.flat().slice(0, size));
}

describe("ROCm's best-effort allocator tests on its MI300X CPX topology", () => {
  const allocate = preferredAllocation(1);
  it.each(CASES.map((c) => [c.description, c] as const))('%s: costs no more than ROCm’s answer', (_, c) => {
    const available = (c.available ?? devices.map((d) => d.id)).filter((id) => !c.filtered?.includes(id));
    const chosen = allocate({
      resource: 'amd.com/gpu',
      available: devices.filter((d) => available.includes(d.id)),
      mustInclude: [...(c.required ?? [])],
      size: c.size,
    });
    expect(chosen).toHaveLength(c.size);
    expect(new Set(chosen).size).toBe(c.size);
    for (const id of c.required ?? []) expect(chosen).toContain(id);
    for (const id of chosen) expect(available).toContain(id);
    if (c.expectedIds !== undefined)
      expect(linkWeight(chosen)).toBeLessThanOrEqual(linkWeight(c.expectedIds));
    if (c.required === undefined) expect(linkWeight(chosen)).toBe(lowestWeight(available, c.size));
  });

  it('the issue’s case: size 10 with six partitions unavailable costs 1,033, as ROCm’s answer', () => {
    const ten = CASES.find((c) => c.description === 'Allocate 10 devices');
    expect(linkWeight(ten?.expectedIds ?? [])).toBe(1033);
    const available = devices.filter((d) => !ten?.filtered?.includes(d.id));
    const chosen = allocate({ resource: 'amd.com/gpu', available, mustInclude: [], size: 10 });
    expect(linkWeight(chosen)).toBe(1033);
  });
});
