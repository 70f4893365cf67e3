import { formatTaint, toleratesTaint, untoleratedTaints } from './device-tolerations';
import type { SliceDeviceTaint } from './pool-slices';

describe('device tolerations', () => {
  const taint: SliceDeviceTaint = { key: 'kdp.dev/unhealthy', value: 'Xid-79', effect: 'NoExecute' };

  it('tolerates by effect, key and Exists or Equal, as core/v1 tolerations do', () => {
    expect(toleratesTaint({ operator: 'Exists' }, taint)).toBe(true);
    expect(toleratesTaint({ key: 'kdp.dev/unhealthy', operator: 'Exists' }, taint)).toBe(true);
    expect(
      toleratesTaint({ key: 'kdp.dev/unhealthy', operator: 'Exists', effect: 'NoSchedule' }, taint),
    ).toBe(false);
    expect(toleratesTaint({ key: 'kdp.dev/unhealthy', value: 'Xid-79' }, taint)).toBe(true);
    expect(toleratesTaint({ key: 'kdp.dev/unhealthy', value: 'Xid-48' }, taint)).toBe(false);
    expect(toleratesTaint({ key: 'other', operator: 'Exists' }, taint)).toBe(false);
    expect(toleratesTaint({ key: 'kdp.dev/unhealthy', operator: 'Lt' }, taint)).toBe(false);
  });

  it('lists the taints no toleration tolerates, printed as kubectl does', () => {
    const noSchedule: SliceDeviceTaint = { key: 'kdp.dev/unhealthy', effect: 'NoSchedule' };
    expect(untoleratedTaints([taint, noSchedule], undefined)).toEqual([taint, noSchedule]);
    expect(untoleratedTaints([taint, noSchedule], [{ operator: 'Exists', effect: 'NoSchedule' }])).toEqual([
      taint,
    ]);
    expect(formatTaint(taint)).toBe('kdp.dev/unhealthy=Xid-79:NoExecute');
    expect(formatTaint(noSchedule)).toBe('kdp.dev/unhealthy:NoSchedule');
  });
});
