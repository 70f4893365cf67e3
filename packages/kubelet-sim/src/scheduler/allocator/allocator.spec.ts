import { fixtureClaim, fixtureClass, fixtureSlice, gpuDevice } from '../testing/dra-fixtures';
import type { AllocateOutcome } from './allocator';
import { allocate, allocationOf, cannot, devicesOf } from '../testing/allocate-harness';

const twoGpus = fixtureSlice('s1', [gpuDevice('gpu-0'), gpuDevice('gpu-1')]);

describe('allocateClaims', () => {
  it('allocates ExactCount devices of a node-local slice and pins the claim to the node', () => {
    const outcome = allocate([fixtureClaim('c', { gpu: { count: 2 } })], [twoGpus]);
    expect(outcome).toEqual({
      kind: 'allocated',
      allocations: [
        {
          devices: {
            results: [
              { request: 'gpu', driver: 'gpu.example.com', pool: 'node-a', device: 'gpu-0' },
              { request: 'gpu', driver: 'gpu.example.com', pool: 'node-a', device: 'gpu-1' },
            ],
          },
          nodeSelector: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-a'] }] },
            ],
          },
        },
      ],
    });
    expect(allocate([fixtureClaim('c', { gpu: { count: 3 } })], [twoGpus])).toEqual(cannot);
  });

  it('skips devices other claims hold, and slices of other nodes', () => {
    const held = fixtureClaim('held', { gpu: {} });
    const heldOutcome = allocate([held], [twoGpus]);
    const allocatedHeld = {
      ...held,
      status: { allocation: allocationOf(heldOutcome) },
    };
    expect(
      devicesOf(allocate([fixtureClaim('c', { gpu: {} })], [twoGpus], { allocated: [allocatedHeld] })),
    ).toEqual(['gpu:gpu-1']);
    const binding = fixtureSlice('s3', [gpuDevice('gpu-5', { bindingConditions: ['attached'] })], {
      pool: 'b',
    });
    expect(devicesOf(allocate([fixtureClaim('c', { gpu: { count: 2 } })], [twoGpus, binding]))).toEqual([
      'gpu:gpu-0',
      'gpu:gpu-1',
    ]);
    expect(allocate([fixtureClaim('c', { gpu: { count: 3 } })], [twoGpus, binding])).toEqual(cannot);
    const elsewhere = fixtureSlice('s2', [gpuDevice('gpu-9')], { node: 'node-b' });
    expect(allocate([fixtureClaim('c', { gpu: { count: 3 } })], [twoGpus, elsewhere])).toEqual(cannot);
  });

  it('evaluates class and request selectors in CEL', () => {
    const slice = fixtureSlice('s', [
      gpuDevice('gpu-0', { attributes: { model: { string: 'T4' } } }),
      gpuDevice('gpu-1', { attributes: { model: { string: 'A100' }, driverVersion: { version: '2.1.0' } } }),
    ]);
    const claim = fixtureClaim('c', {
      gpu: { selectors: [{ cel: { expression: 'device.attributes["gpu.example.com"].model == "A100"' } }] },
    });
    expect(devicesOf(allocate([claim], [slice]))).toEqual(['gpu:gpu-1']);
    const other = fixtureClass('gpu', 'other.example.com');
    expect(allocate([claim], [slice], { classes: [other] })).toEqual(cannot);
  });

  it('reports CEL errors as allocation errors, not as non-matches', () => {
    const claim = fixtureClaim('c', {
      gpu: {
        selectors: [
          { cel: { expression: 'device.attributes["gpu.example.com"].driverVersion.major() >= 2' } },
        ],
      },
    });
    expect(allocate([claim], [twoGpus])).toEqual({
      kind: 'error',
      message:
        'claim default/c: selector #0 on device gpu.example.com/node-a/gpu-0: CEL runtime error: no such key: driverVersion',
    });
    const bad = fixtureClaim('c', { gpu: { selectors: [{ cel: { expression: 'device.nope' } }] } });
    expect(allocate([bad], [twoGpus])).toMatchObject({
      kind: 'error',
      message: expect.stringContaining(
        "claim default/c: selector #0: CEL compile error: compilation failed: ERROR: <input>:1:7: undefined field 'nope'",
      ),
    });
    expect(allocate([fixtureClaim('c', { gpu: { deviceClassName: 'nope' } })], [twoGpus])).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('could not retrieve device class nope'),
    });
  });

  it('uses complete pools of the newest generation only', () => {
    const partial = fixtureSlice('p1', [gpuDevice('gpu-0')], { pool: 'p', count: 2 });
    expect(allocate([fixtureClaim('c', { gpu: {} })], [partial])).toEqual(cannot);
    const second = fixtureSlice('p2', [gpuDevice('gpu-1')], { pool: 'p', count: 2, node: 'node-b' });
    expect(devicesOf(allocate([fixtureClaim('c', { gpu: {} })], [partial, second]))).toEqual(['gpu:gpu-0']);
    const old = fixtureSlice('o', [gpuDevice('gpu-0')], { pool: 'q', generation: 1 });
    const fresh = fixtureSlice('n', [gpuDevice('gpu-5')], { pool: 'q', generation: 2 });
    expect(devicesOf(allocate([fixtureClaim('c', { gpu: { count: 1 } })], [old, fresh]))).toEqual([
      'gpu:gpu-5',
    ]);
    const dup = fixtureSlice('d', [gpuDevice('gpu-0'), gpuDevice('gpu-0')]);
    expect(allocate([fixtureClaim('c', { gpu: {} })], [dup])).toEqual({
      kind: 'unschedulable',
      reason: 'invalid resource pools were encountered',
    });
  });

  it('uses allNodes and nodeSelector slices, writing their node selector', () => {
    const all = fixtureSlice('net', [gpuDevice('gpu-0')], { pool: 'net', where: { allNodes: true } });
    const outcome = allocate([fixtureClaim('c', { gpu: {} })], [all]);
    expect(outcome).toMatchObject({ kind: 'allocated' });
    expect(
      (outcome as { allocations: { nodeSelector?: unknown }[] }).allocations[0]?.nodeSelector,
    ).toBeUndefined();
    const zone = {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In' as const, values: ['z1'] }] }],
    };
    const zonal = fixtureSlice('z', [gpuDevice('gpu-0')], { pool: 'z', where: { nodeSelector: zone } });
    expect(allocate([fixtureClaim('c', { gpu: {} })], [zonal])).toMatchObject({
      allocations: [{ nodeSelector: zone }],
    });
    const otherZone = {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In' as const, values: ['z2'] }] }],
    };
    const far = fixtureSlice('z', [gpuDevice('gpu-0')], { pool: 'z', where: { nodeSelector: otherZone } });
    expect(allocate([fixtureClaim('c', { gpu: {} })], [far])).toEqual(cannot);
  });

  it('allocates every matching device with allocationMode All, and nothing when none matches', () => {
    expect(devicesOf(allocate([fixtureClaim('c', { gpu: { allocationMode: 'All' } })], [twoGpus]))).toEqual([
      'gpu:gpu-0',
      'gpu:gpu-1',
    ]);
    const none = fixtureClaim('c', {
      gpu: {
        allocationMode: 'All',
        selectors: [{ cel: { expression: 'device.attributes["gpu.example.com"].model == "X"' } }],
      },
    });
    expect(allocate([none], [twoGpus])).toEqual(cannot);
    const partial = fixtureSlice('p1', [gpuDevice('gpu-0')], { pool: 'p', count: 2 });
    expect(allocate([fixtureClaim('c', { gpu: { allocationMode: 'All' } })], [partial])).toMatchObject({
      kind: 'error',
      message: expect.stringContaining(
        'asks for all devices, but resource pool gpu.example.com/p is currently being updated',
      ),
    });
  });

  it('gives devices in use to admin access requests only', () => {
    const held = { ...fixtureClaim('held', { gpu: { allocationMode: 'All' } }) };
    const outcome = allocate([held], [twoGpus]);
    const allocatedHeld = {
      ...held,
      status: { allocation: allocationOf(outcome) },
    };
    expect(allocate([fixtureClaim('c', { gpu: {} })], [twoGpus], { allocated: [allocatedHeld] })).toEqual(
      cannot,
    );
    const admin = allocate([fixtureClaim('c', { gpu: { adminAccess: true } })], [twoGpus], {
      allocated: [allocatedHeld],
    });
    expect(admin).toMatchObject({
      allocations: [{ devices: { results: [{ device: 'gpu-0', adminAccess: true }] } }],
    });
    const adminHeld = { ...held, status: { allocation: allocationOf(admin) } };
    expect(
      devicesOf(allocate([fixtureClaim('c', { gpu: {} })], [twoGpus], { allocated: [adminHeld] })),
    ).toEqual(['gpu:gpu-0']);
  });

  it('keeps NoSchedule and NoExecute tainted devices from requests that do not tolerate them', () => {
    const taint = { key: 'example.com/unhealthy', value: 'ecc', effect: 'NoSchedule' };
    const tainted = fixtureSlice('t', [gpuDevice('gpu-0', { taints: [taint] })]);
    expect(allocate([fixtureClaim('c', { gpu: {} })], [tainted])).toEqual(cannot);
    const ok = (tolerations: object[]): AllocateOutcome =>
      allocate([fixtureClaim('c', { gpu: { tolerations } })], [tainted]);
    expect(ok([{ key: 'example.com/unhealthy', operator: 'Exists' }])).toMatchObject({ kind: 'allocated' });
    expect(ok([{ operator: 'Exists' }])).toMatchObject({
      allocations: [{ devices: { results: [{ tolerations: [{ operator: 'Exists' }] }] } }],
    });
    expect(ok([{ key: 'example.com/unhealthy', value: 'ecc' }])).toMatchObject({ kind: 'allocated' });
    expect(ok([{ key: 'example.com/unhealthy', value: 'other' }])).toEqual(cannot);
    expect(ok([{ key: 'example.com/unhealthy', operator: 'Exists', effect: 'NoExecute' }])).toEqual(cannot);
    const noEffect = fixtureSlice('t', [gpuDevice('gpu-0', { taints: [{ ...taint, effect: 'None' }] })]);
    expect(allocate([fixtureClaim('c', { gpu: {} })], [noEffect])).toMatchObject({ kind: 'allocated' });
  });
});
