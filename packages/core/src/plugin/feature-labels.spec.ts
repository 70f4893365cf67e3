import { checkFeatureLabels, featureLabelProblem, toLabelValue } from './feature-labels';

describe('featureLabelProblem', () => {
  it.each([
    ['nvidia.com/gpu.product', 'NVIDIA-H100-80GB-HBM3'],
    ['nvidia.com/gpu.count', '8'],
    ['feature.node.kubernetes.io/rdma.capable', 'true'],
    ['vendor.feature.node.kubernetes.io/x', ''],
    ['amd.com/gpu.product-name', 'AMD_Instinct_MI300X_OAM'],
    [`example.com/${'n'.repeat(63)}`, 'v'.repeat(63)],
  ])('accepts %s=%s', (name, value) => {
    expect(featureLabelProblem(name, value)).toBeUndefined();
  });

  it.each([
    ['gpu.count', '1', 'needs a prefix'],
    ['Example.com/x', '1', 'not a DNS subdomain'],
    ['kubernetes.io/x', '1', 'reserved for Kubernetes'],
    ['node.k8s.io/x', '1', 'reserved for Kubernetes'],
    [`example.com/${'n'.repeat(64)}`, '1', 'is not 1–63'],
    ['example.com/-x', '1', 'is not 1–63'],
    ['example.com/x', 'v'.repeat(64), 'is not 0–63'],
    ['example.com/x', 'a b', 'is not 0–63'],
    ['example.com/x', 'a\nexample.com/y=1', 'is not 0–63'],
    ['example.com/x=y', '1', 'is not 1–63'],
  ])('refuses %j=%j (%s)', (name, value, problem) => {
    expect(featureLabelProblem(name, value)).toContain(problem);
  });
});

describe('checkFeatureLabels', () => {
  it('keeps valid labels and says why each other one is dropped', () => {
    const checked = checkFeatureLabels({ 'example.com/a': '1', bare: 'x', 'example.com/b': 'has space' });
    expect(checked.labels).toEqual({ 'example.com/a': '1' });
    expect(checked.problems).toEqual([
      expect.stringMatching(/^node feature label "bare" dropped: a label name needs a prefix/),
      expect.stringMatching(/^node feature label "example.com\/b" dropped: value "has space"/),
    ]);
  });
});

describe('toLabelValue', () => {
  it.each([
    ['NVIDIA H100 80GB HBM3', '-', 'NVIDIA-H100-80GB-HBM3'],
    ['AMD Instinct MI300X (OAM)', '_', 'AMD_Instinct_MI300X_OAM'],
    ['  Tesla V100-SXM2-16GB  ', '-', 'Tesla-V100-SXM2-16GB'],
    ['((()))', '-', ''],
    ['x'.repeat(62) + ' y', '-', 'x'.repeat(62)],
  ] as const)('%j → %j', (text, replacement, value) => {
    const out = toLabelValue(text, replacement);
    expect(out).toBe(value);
    expect(featureLabelProblem('example.com/x', out)).toBeUndefined();
  });
});
