import { checkAllocation, selectsNode } from './check-allocation';
import { allocatedClaim } from './dra-test.fixture';

describe('checkAllocation', () => {
  const ref = { namespace: 'default', name: 'a', uid: 'uid-a' };
  const node = { nodeName: 'node-1' };

  it("returns this driver's results and opaque configs", () => {
    const claim = allocatedClaim('a', 'uid-a', [
      { device: 'gpu-0' },
      { device: 'nic-0', driver: 'nic.kdp.dev' },
    ]);
    const checked = checkAllocation(claim, ref, 'gpu.kdp.dev', node);
    expect(checked.results.map((r) => r.device)).toEqual(['gpu-0']);
    expect(checked.config.map((c) => c.source)).toEqual(['FromClass']);
  });

  it('rejects results in a pool that is not this node’s', () => {
    const claim = allocatedClaim('a', 'uid-a', [{ device: 'gpu-0', pool: 'shared-pool' }]);
    expect(() =>
      checkAllocation(claim, ref, 'gpu.kdp.dev', { ...node, isLocalPool: (pool) => pool === 'node-1' }),
    ).toThrow(/device shared-pool\/gpu-0 is not in a pool of node node-1/);
  });

  it('accepts an allocation without a node selector (usable everywhere)', () => {
    const claim = allocatedClaim('a', 'uid-a', [{ device: 'gpu-0' }]);
    const unbound = { ...claim, status: { allocation: { devices: claim.status?.allocation?.devices } } };
    expect(checkAllocation(unbound, ref, 'gpu.kdp.dev', node).results).toHaveLength(1);
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
