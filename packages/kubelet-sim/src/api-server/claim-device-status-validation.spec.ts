import { validateResourceClaimStatus } from './validation';

const result = { request: 'net', driver: 'sriov.kdp.dev', pool: 'node/vf', device: 'vf-1' };
const ready = {
  type: 'Ready',
  status: 'True',
  reason: 'Prepared',
  message: 'ok',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};
const claimWith = (devices: unknown[], results: unknown[] = [result]) => ({
  metadata: { name: 'c', namespace: 'default' },
  status: { allocation: { devices: { results } }, devices },
});
const fields = (devices: unknown[], results?: unknown[]): (string | undefined)[] =>
  validateResourceClaimStatus(claimWith(devices, results)).map((c) => c.field);

// Upstream's validation of status.devices (KEP 4817), as the API server applies it to a driver's status write.
describe('ResourceClaim status.devices validation', () => {
  const entry = { driver: 'sriov.kdp.dev', pool: 'node/vf', device: 'vf-1' };

  it('accepts an allocated device with conditions and network data', () => {
    const networkData = {
      interfaceName: 'ens1f0v1',
      hardwareAddress: '02:00:00:00:00:01',
      ips: ['192.0.2.5/24', '2001:db8::1/64'],
    };
    expect(fields([{ ...entry, conditions: [ready], networkData }])).toEqual([]);
    const shared = { ...result, shareID: 'a1' };
    expect(fields([{ ...entry, shareID: 'a1' }], [shared])).toEqual([]);
  });

  it('refuses a device (or share) the claim was not allocated, and one listed twice', () => {
    expect(fields([{ ...entry, device: 'vf-2' }])).toEqual(['status.devices[0]']);
    expect(fields([{ ...entry, shareID: 'x' }])).toEqual(['status.devices[0]']);
    expect(fields([entry, entry])).toEqual(['status.devices[1]']);
  });

  it('refuses bad conditions: type, status, reason, lastTransitionTime, more than 8', () => {
    const bad = [
      { ...ready, type: '' },
      { ...ready, type: 'A', status: 'yes' },
      { ...ready, type: 'B', reason: '1x' },
    ];
    expect(fields([{ ...entry, conditions: bad }])).toEqual([
      'status.devices[0].conditions[0].type',
      'status.devices[0].conditions[1].status',
      'status.devices[0].conditions[2].reason',
    ]);
    const { lastTransitionTime: _, ...noTime } = ready;
    expect(fields([{ ...entry, conditions: [noTime] }])).toEqual([
      'status.devices[0].conditions[0].lastTransitionTime',
    ]);
    const nine = Array.from({ length: 9 }, (_, i) => ({ ...ready, type: `T${i}` }));
    expect(fields([{ ...entry, conditions: nine }])).toEqual(['status.devices[0].conditions']);
  });

  it('refuses network data past its limits or with IPs not in CIDR form', () => {
    const networkData = {
      interfaceName: 'x'.repeat(257),
      hardwareAddress: 'f'.repeat(129),
      ips: ['192.0.2.5', '192.0.2.5/33', '10.0.0.1/8', '10.0.0.1/8'],
    };
    expect(fields([{ ...entry, networkData }])).toEqual([
      'status.devices[0].networkData.interfaceName',
      'status.devices[0].networkData.hardwareAddress',
      'status.devices[0].networkData.ips[0]',
      'status.devices[0].networkData.ips[1]',
      'status.devices[0].networkData.ips[3]',
    ]);
  });
});
