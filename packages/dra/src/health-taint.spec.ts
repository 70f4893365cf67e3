import type { AnyResourceDeclaration } from '@kdp/core';
import { healthTaint, taintValue } from './health-taint';

describe('taintValue', () => {
  it('makes a problem a label value: other characters as -, at most 63, alphanumeric at both ends', () => {
    expect(taintValue('NVML reported critical Xid 79')).toBe('NVML-reported-critical-Xid-79');
    expect(taintValue('/dev/nvidia0 is missing; port error 0x10!')).toBe(
      'dev-nvidia0-is-missing-port-error-0x10',
    );
    const long = taintValue(`${'a'.repeat(62)} b`);
    expect(long).toBe('a'.repeat(62));
    expect(taintValue(`${'x'.repeat(100)}`)?.length).toBe(63);
    expect(taintValue(' ; ')).toBeUndefined();
    expect(taintValue(undefined)).toBeUndefined();
  });
});

describe('healthTaint', () => {
  const declaration = (effect?: 'NoExecute'): AnyResourceDeclaration => ({
    name: 'example.com/gpu',
    source: { subscribe: () => () => undefined },
    ...(effect === undefined ? {} : { dra: { taintEffect: () => effect } }),
  });

  it('taints an Unhealthy device NoSchedule, or as the resource says; a Healthy one not at all', () => {
    expect(healthTaint(declaration(), { id: 'a', health: 'Healthy' })).toBeUndefined();
    expect(healthTaint(declaration(), { id: 'a', health: 'Unhealthy' })).toEqual({
      key: 'kdp.dev/unhealthy',
      effect: 'NoSchedule',
    });
    expect(
      healthTaint(declaration('NoExecute'), { id: 'a', health: 'Unhealthy', problem: 'Xid 79' }),
    ).toEqual({
      key: 'kdp.dev/unhealthy',
      value: 'Xid-79',
      effect: 'NoExecute',
    });
  });
});
