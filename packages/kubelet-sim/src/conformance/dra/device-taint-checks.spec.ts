import type { ApiObject } from './dra-check-api';
import { checkDeviceTaints } from './device-taint-checks';

const slice = (...taints: object[][]): ApiObject =>
  ({
    metadata: { name: 's' },
    spec: { devices: taints.map((t, i) => ({ name: `d${i}`, ...(t.length > 0 ? { taints: t } : {}) })) },
  }) as ApiObject;

describe('checkDeviceTaints', () => {
  it('passes without taints, and with well-formed ones', () => {
    expect(checkDeviceTaints([slice([])])).toMatchObject({
      id: 'device-taints',
      status: 'pass',
      reason: 'no published device has a taint',
    });
    const good = {
      key: 'kdp.dev/unhealthy',
      value: 'Xid-79',
      effect: 'NoExecute',
      timeAdded: '2027-01-15T08:00:00Z',
    };
    expect(
      checkDeviceTaints([slice([], [good, { ...good, value: undefined, effect: 'NoSchedule' }])]),
    ).toMatchObject({
      status: 'pass',
      reason: '2 taint(s) well formed',
    });
  });

  it('warns about a bad key, value or effect and a missing timeAdded', () => {
    const check = checkDeviceTaints([
      slice([{ key: 'Bad_Domain/x', value: 'has space', effect: 'PreferNoSchedule' }]),
    ]);
    expect(check.status).toBe('warn');
    expect(check.reason).toContain(
      'd0: key "Bad_Domain/x" is not a qualified name, value "has space" is not a label value, effect "PreferNoSchedule", no timeAdded',
    );
  });
});
