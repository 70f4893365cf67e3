import type { ResourceClaim, ResourceSlice } from '../dra-types';
import { fixtureClaim, fixtureClass, fixtureSlice, gpuDevice } from '../testing/dra-fixtures';
import { allocate, allocationOf, cannot, devicesOf } from '../testing/allocate-harness';

const model = (m: string): string => `device.attributes["gpu.example.com"].model == "${m}"`;

const prioritized = (
  devices: Partial<NonNullable<ResourceClaim['spec']['devices']>> = {},
): ResourceClaim => ({
  metadata: { name: 'c', namespace: 'default', uid: 'uid-c' },
  spec: {
    devices: {
      requests: [
        {
          name: 'main',
          firstAvailable: [
            { name: 'big', deviceClassName: 'gpu', selectors: [{ cel: { expression: model('H100') } }] },
            {
              name: 'small',
              deviceClassName: 'gpu',
              count: 2,
              selectors: [{ cel: { expression: model('T4') } }],
            },
          ],
        },
      ],
      ...devices,
    },
  },
});

/** A slice of pool `p` (2 slices) holding counter sets and no devices, as Kubernetes 1.35 publishes them. */
const counterSetSlice = (
  sharedCounters: NonNullable<ResourceSlice['spec']['sharedCounters']>,
): ResourceSlice => {
  const counters = fixtureSlice('counters', [], { pool: 'p', count: 2 });
  const { devices: _none, ...spec } = counters.spec;
  return { ...counters, spec: { ...spec, sharedCounters } };
};

describe('allocateClaims: prioritized lists, constraints, config', () => {
  const t4s = fixtureSlice('s', [
    gpuDevice('gpu-0', { attributes: { model: { string: 'T4' } } }),
    gpuDevice('gpu-1', { attributes: { model: { string: 'T4' } } }),
  ]);

  it('tries firstAvailable subrequests in order and names results main/sub', () => {
    expect(devicesOf(allocate([prioritized()], [t4s]))).toEqual(['main/small:gpu-0', 'main/small:gpu-1']);
    const h100 = fixtureSlice('h', [gpuDevice('gpu-7', { attributes: { model: { string: 'H100' } } })], {
      pool: 'h',
    });
    expect(devicesOf(allocate([prioritized()], [t4s, h100]))).toEqual(['main/big:gpu-7']);
    const oneT4 = fixtureSlice('s', [gpuDevice('gpu-0', { attributes: { model: { string: 'T4' } } })]);
    expect(allocate([prioritized()], [oneT4])).toEqual(cannot);
  });

  it('writes class config (FromClass) and the claim config that applies (FromClaim), dropping full request lists', () => {
    const opaque = (n: number): { opaque: { driver: string; parameters: object } } => ({
      opaque: { driver: 'gpu.example.com', parameters: { n } },
    });
    const cls = fixtureClass('gpu', 'gpu.example.com', { config: [opaque(0)] });
    const claim = prioritized({
      config: [
        { requests: ['main'], ...opaque(1) },
        { requests: ['main/small'], ...opaque(2) },
        { requests: ['main/big'], ...opaque(3) },
        { requests: ['other', 'main/small'], ...opaque(4) },
        opaque(5),
      ],
    });
    const outcome = allocate([claim], [t4s], { classes: [cls] });
    expect(outcome).toMatchObject({
      allocations: [
        {
          devices: {
            config: [
              { source: 'FromClass', ...opaque(0) },
              { source: 'FromClaim', ...opaque(1) },
              { source: 'FromClaim', ...opaque(2) },
              { source: 'FromClaim', ...opaque(4) },
              { source: 'FromClaim', ...opaque(5) },
            ],
          },
        },
      ],
    });
    const config = (outcome as { allocations: { devices: { config: { requests?: string[] }[] } }[] })
      .allocations[0]?.devices.config;
    expect(config?.map((c) => c.requests)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    const two = fixtureClaim('c', { a: {}, b: {} }, { config: [{ requests: ['a'], ...opaque(1) }] });
    const both = allocate([two], [t4s], { classes: [cls] });
    const bothConfig = (both as { allocations: { devices: { config: object[] } }[] }).allocations[0]?.devices
      .config;
    expect(bothConfig).toEqual([
      { source: 'FromClass', ...opaque(0) },
      { source: 'FromClaim', requests: ['a'], ...opaque(1) },
    ]);
  });

  it('backtracks to satisfy matchAttribute, and only over the listed requests', () => {
    const slice = fixtureSlice('s', [
      gpuDevice('gpu-0', { attributes: { numa: { int: 0 } } }),
      gpuDevice('gpu-1', { attributes: { numa: { int: 1 } } }),
      gpuDevice('gpu-2', { attributes: { numa: { int: 1 } } }),
    ]);
    const constraint = { matchAttribute: 'gpu.example.com/numa' };
    const claim = fixtureClaim('c', { a: {}, b: {} }, { constraints: [constraint] });
    expect(devicesOf(allocate([claim], [slice]))).toEqual(['a:gpu-1', 'b:gpu-2']);
    const three = fixtureClaim(
      'c',
      { a: {}, b: {}, x: {} },
      { constraints: [{ ...constraint, requests: ['a', 'b'] }] },
    );
    expect(devicesOf(allocate([three], [slice]))).toEqual(['a:gpu-1', 'b:gpu-2', 'x:gpu-0']);
    const all = fixtureClaim('c', { a: { count: 3 } }, { constraints: [constraint] });
    expect(allocate([all], [slice])).toEqual(cannot);
    const missing = fixtureClaim(
      'c',
      { a: {} },
      { constraints: [{ matchAttribute: 'gpu.example.com/nope' }] },
    );
    expect(allocate([missing], [slice])).toEqual(cannot);
    const sub = prioritized({
      constraints: [{ matchAttribute: 'gpu.example.com/numa', requests: ['main/small'] }],
    });
    const t4numa = fixtureSlice('s', [
      gpuDevice('gpu-0', { attributes: { model: { string: 'T4' }, numa: { int: 0 } } }),
      gpuDevice('gpu-1', { attributes: { model: { string: 'T4' }, numa: { int: 1 } } }),
    ]);
    expect(allocate([sub], [t4numa])).toEqual(cannot);
  });

  it('shares counters between devices of a pool (sharedCounters / consumesCounters)', () => {
    const withCounters = counterSetSlice([{ name: 'mem', counters: { bytes: { value: '40Gi' } } }]);
    const uses = (v: string): object => ({
      consumesCounters: [{ counterSet: 'mem', counters: { bytes: { value: v } } }],
    });
    const parts = fixtureSlice(
      'parts',
      [
        gpuDevice('whole', uses('40Gi')),
        gpuDevice('half-0', uses('20Gi')),
        gpuDevice('half-1', uses('20Gi')),
      ],
      { pool: 'p', count: 2 },
    );
    expect(devicesOf(allocate([fixtureClaim('c', { gpu: { count: 2 } })], [withCounters, parts]))).toEqual([
      'gpu:half-0',
      'gpu:half-1',
    ]);
    expect(allocate([fixtureClaim('c', { gpu: { count: 3 } })], [withCounters, parts])).toEqual(cannot);
    const held = fixtureClaim('held', { gpu: {} });
    const first = allocate([held], [withCounters, parts]);
    expect(devicesOf(first)).toEqual(['gpu:whole']);
    const allocated = [{ ...held, status: { allocation: allocationOf(first) } }];
    expect(allocate([fixtureClaim('c', { gpu: {} })], [withCounters, parts], { allocated })).toEqual(cannot);
  });

  it('checks only the counters a device consumes: an overdrawn counter set of another GPU blocks nothing else', () => {
    // The 1.35 layout: counter sets in a slice of their own. gpu-0's set shrank below what its allocated
    // partition holds (a mode change); a partition of gpu-1 must still fit, as kube-scheduler checks each
    // consumed counter alone.
    const sets = counterSetSlice([
      { name: 'gpu-0', counters: { xcp: { value: '1' } } },
      { name: 'gpu-1', counters: { xcp: { value: '8' } } },
    ]);
    const part = (name: string, set: string, n: string): ReturnType<typeof gpuDevice> =>
      gpuDevice(name, { consumesCounters: [{ counterSet: set, counters: { xcp: { value: n } } }] });
    const parts = fixtureSlice('parts', [part('a-0', 'gpu-0', '2'), part('b-0', 'gpu-1', '2')], {
      pool: 'p',
      count: 2,
    });
    const held = fixtureClaim('held', { gpu: {} });
    const heldAllocation = {
      devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'p', device: 'a-0' }] },
    };
    const allocated = [{ ...held, status: { allocation: heldAllocation } }];
    expect(devicesOf(allocate([fixtureClaim('c', { gpu: {} })], [sets, parts], { allocated }))).toEqual([
      'gpu:b-0',
    ]);
  });

  it('shares devices with allowMultipleAllocations by capacity, with request policies', () => {
    const shared = fixtureSlice('s', [
      gpuDevice('gpu-0', {
        allowMultipleAllocations: true,
        capacity: {
          memory: {
            value: '40Gi',
            requestPolicy: { default: '10Gi', validRange: { min: '10Gi', step: '10Gi' } },
          },
        },
      }),
    ]);
    const claim = (memory?: string): ResourceClaim =>
      fixtureClaim('c', { gpu: memory === undefined ? {} : { capacity: { requests: { memory } } } });
    expect(allocate([claim('15Gi')], [shared])).toMatchObject({
      allocations: [
        {
          devices: {
            results: [{ device: 'gpu-0', shareID: 'share-1', consumedCapacity: { memory: '20Gi' } }],
          },
        },
      ],
    });
    expect(devicesOf(allocate([claim(), claim('30Gi')], [shared]), 1)).toEqual(['gpu:gpu-0']);
    expect(allocate([claim(), claim('35Gi')], [shared])).toEqual(cannot);
    expect(
      allocate([fixtureClaim('c', { gpu: { capacity: { requests: { cores: '1' } } } })], [shared]),
    ).toEqual(cannot);
    const first = allocate([claim('40Gi')], [shared]);
    const allocated = [{ ...claim('40Gi'), status: { allocation: allocationOf(first) } }];
    expect(allocate([claim()], [shared], { allocated })).toEqual(cannot);
  });
});
