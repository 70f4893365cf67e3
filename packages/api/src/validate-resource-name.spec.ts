import fc from 'fast-check';
import { validateResourceName } from './index';

const label63 = 'a'.repeat(63);
// "requests." + domain must stay within a DNS-1123 subdomain's 253 characters: 244 for the domain.
const domainOf = (length: number): string => {
  const labels: string[] = [];
  let left = length;
  while (left > 0) {
    const take = Math.min(63, left === 64 ? 62 : left);
    labels.push('d'.repeat(take));
    left -= take + 1;
  }
  return labels.join('.').slice(0, length);
};

describe('validateResourceName', () => {
  it('builds domains of the lengths the table needs', () => {
    expect(domainOf(244)).toHaveLength(244);
    expect(domainOf(245)).toHaveLength(245);
  });

  it.each([
    'nvidia.com/gpu',
    'amd.com/gpu',
    'gpu.intel.com/i915',
    'gpu.intel.com/xe',
    'intel.com/sriov_netdevice',
    'rdma/hca_shared_devices_a',
    'fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs',
    'example.com/Hello',
    'example.com/a',
    'example.com/a.b_c-d',
    `example.com/${label63}`,
    'a/b',
    '1.2.3/x',
    'xn--bcher-kva.example/dev',
    `${domainOf(244)}/x`,
    'example.com/9',
    'squat.ai/serial',
  ])('accepts %s', (name) => {
    expect(validateResourceName(name)).toEqual({ valid: true });
  });

  it.each([
    ['gpu', 'has no "/"'],
    ['', 'has no "/"'],
    ['kubernetes.io/gpu', 'contains "kubernetes.io/"'],
    ['a.kubernetes.io/gpu', 'contains "kubernetes.io/"'],
    ['mykubernetes.io/gpu', 'contains "kubernetes.io/"'],
    ['example.com/kubernetes.io/x', 'contains "kubernetes.io/"'],
    ['requests.example.com/gpu', 'starts with "requests."'],
    ['example.com/a/b', 'exactly one "/"'],
    ['/gpu', 'not a lowercase DNS-1123 subdomain'],
    ['Example.com/gpu', 'not a lowercase DNS-1123 subdomain'],
    ['example_com/gpu', 'not a lowercase DNS-1123 subdomain'],
    ['-example.com/gpu', 'not a lowercase DNS-1123 subdomain'],
    ['example.com-/gpu', 'not a lowercase DNS-1123 subdomain'],
    ['example..com/gpu', 'not a lowercase DNS-1123 subdomain'],
    ['example.com./gpu', 'not a lowercase DNS-1123 subdomain'],
    [`${domainOf(245)}/x`, 'at most 244 are allowed'],
    ['example.com/', 'is empty'],
    [`example.com/${label63}a`, 'at most 63 are allowed'],
    ['example.com/-gpu', 'must be alphanumerics'],
    ['example.com/gpu-', 'must be alphanumerics'],
    ['example.com/gpu_', 'must be alphanumerics'],
    ['example.com/.gpu', 'must be alphanumerics'],
    ['example.com/g pu', 'must be alphanumerics'],
    ['example.com/gpu:0', 'must be alphanumerics'],
    ['example.com/gpü', 'must be alphanumerics'],
  ])('rejects %j because it %s', (name, because) => {
    const result = validateResourceName(name);
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.reason).toContain(because);
    expect(result.message).toBe(`the ResourceName ${JSON.stringify(name)} is invalid`);
  });

  it("quotes the name in the message as Go's %q does", () => {
    const result = validateResourceName('bad\tname\n"\\\u0007\u0000é');
    expect(result).toMatchObject({
      valid: false,
      message: 'the ResourceName "bad\\tname\\n\\"\\\\\\a\\x00é" is invalid',
    });
  });

  it('rejects every name containing "kubernetes.io/", whatever surrounds it', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, after) => {
        expect(validateResourceName(`${before}kubernetes.io/${after}`).valid).toBe(false);
      }),
    );
  });

  it('accepts every well-formed domain/name pair', () => {
    const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
    const domain = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));
    const part = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,40}[A-Za-z0-9])?$/);
    fc.assert(
      fc.property(domain, part, (d, p) => {
        fc.pre(!`${d}/${p}`.includes('kubernetes.io/') && !d.startsWith('requests.'));
        expect(validateResourceName(`${d}/${p}`)).toEqual({ valid: true });
      }),
    );
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (name) => {
        const result = validateResourceName(name);
        expect(typeof result.valid).toBe('boolean');
      }),
    );
  });
});
