import { checkAllocation, selectsNode } from './check-allocation';
import { allocatedClaim } from './dra-test.fixture';
import type { DeviceAllocationConfiguration, ResourceClaim } from './resource-claim';

describe('checkAllocation', () => {
  const ref = { namespace: 'default', name: 'a', uid: 'uid-a' };
  const node = { nodeName: 'node-1' };
  const decode = (parameters: unknown): unknown => {
    const mode = (parameters as { mode?: unknown } | null)?.mode;
    if (typeof mode !== 'string') throw new Error('mode must be a string');
    return { mode: mode.toUpperCase() };
  };
  const withConfig = (config: readonly DeviceAllocationConfiguration[]): ResourceClaim => {
    const claim = allocatedClaim('a', 'uid-a', [{ device: 'gpu-0', request: 'main/big' }]);
    const allocation = claim.status?.allocation;
    return {
      ...claim,
      status: { allocation: { ...allocation, devices: { ...allocation?.devices, config } } },
    };
  };

  it("returns this driver's results and its opaque configs, decoded", () => {
    const claim = allocatedClaim('a', 'uid-a', [
      { device: 'gpu-0' },
      { device: 'nic-0', driver: 'nic.kdp.dev' },
    ]);
    const checked = checkAllocation(claim, ref, 'gpu.kdp.dev', node, decode);
    expect(checked.results.map((r) => r.device)).toEqual(['gpu-0']);
    expect(checked.config).toEqual([{ source: 'FromClass', requests: [], parameters: { mode: 'CLASS' } }]);
  });

  it('fails the claim, naming the field, on configuration for this driver it cannot decode', () => {
    const opaque = (parameters: unknown) => ({ driver: 'gpu.kdp.dev', parameters });
    expect(() =>
      checkAllocation(
        withConfig([
          { source: 'FromClass', opaque: opaque({ mode: 'a' }) },
          { source: 'FromClaim', requests: ['main'], opaque: opaque({ mode: 7 }) },
        ]),
        ref,
        'gpu.kdp.dev',
        node,
        decode,
      ),
    ).toThrow(
      'ResourceClaim default/a: status.allocation.devices.config[1].opaque.parameters: mode must be a string',
    );
    // A driver without a decoder takes no configuration at all.
    expect(() =>
      checkAllocation(withConfig([{ source: 'FromClass', opaque: opaque({}) }]), ref, 'gpu.kdp.dev', node),
    ).toThrow(
      'status.allocation.devices.config[0].opaque.parameters: driver gpu.kdp.dev takes no opaque configuration',
    );
  });

  it('fails the claim on non-opaque configuration for its requests, and leaves other drivers’ alone', () => {
    expect(() =>
      checkAllocation(withConfig([{ source: 'FromClaim', requests: ['main'] }]), ref, 'gpu.kdp.dev', node),
    ).toThrow(
      'status.allocation.devices.config[0]: only opaque configuration is supported by driver gpu.kdp.dev',
    );
    expect(() => checkAllocation(withConfig([{ source: 'FromClass' }]), ref, 'gpu.kdp.dev', node)).toThrow(
      /config\[0\]: only opaque configuration/,
    );
    const others = withConfig([
      { source: 'FromClaim', requests: ['nic'] },
      { source: 'FromClaim', opaque: { driver: 'nic.kdp.dev', parameters: { anything: true } } },
    ]);
    expect(checkAllocation(others, ref, 'gpu.kdp.dev', node).config).toEqual([]);
  });

  it('rejects results in a pool that is not this node’s', () => {
    const claim = allocatedClaim('a', 'uid-a', [{ device: 'gpu-0', pool: 'shared-pool' }]);
    expect(() =>
      checkAllocation(
        claim,
        ref,
        'gpu.kdp.dev',
        { ...node, isLocalPool: (pool) => pool === 'node-1' },
        decode,
      ),
    ).toThrow(/device shared-pool\/gpu-0 is not in a pool of node node-1/);
  });

  it('accepts an allocation without a node selector (usable everywhere)', () => {
    const claim = allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }]);
    const unbound = { ...claim, status: { allocation: { devices: claim.status?.allocation?.devices } } };
    expect(checkAllocation(unbound, ref, 'gpu.kdp.dev', node, decode).results).toHaveLength(1);
  });
});

describe('selectsNode', () => {
  const labels = { 'kubernetes.io/hostname': 'node-1', zone: 'a', gpus: '8' };
  const node = { nodeName: 'node-1', nodeLabels: labels };

  it.each([
    [[{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }], true],
    [[{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node-1'] }] }], false],
    [[{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }], false],
    [
      [
        { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] },
        { matchExpressions: [{ key: 'zone', operator: 'Exists' }] },
      ],
      true,
    ],
    [
      [
        {
          matchExpressions: [
            { key: 'gpus', operator: 'Gt', values: ['4'] },
            { key: 'rack', operator: 'DoesNotExist' },
          ],
        },
      ],
      true,
    ],
    [[{ matchExpressions: [{ key: 'gpus', operator: 'Lt', values: ['4'] }] }], false],
    [[{}], false],
  ])('%j selects node-1: %s', (terms, expected) => {
    expect(selectsNode({ nodeSelectorTerms: terms }, node)).toBe(expected);
  });

  it('checks label expressions only when the labels are known', () => {
    const selector = {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }],
    };
    expect(selectsNode(selector, { nodeName: 'node-1' })).toBe(true);
  });
});
