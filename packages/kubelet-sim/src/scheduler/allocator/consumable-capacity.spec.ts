import { formatQuantity } from '../cel/quantity';
import type { SliceDevice } from '../dra-types';
import { capacityFits, consumedCapacity } from './consumable-capacity';

const device = (
  requestPolicy: NonNullable<SliceDevice['capacity']>[string]['requestPolicy'],
): SliceDevice => ({
  name: 'd',
  allowMultipleAllocations: true,
  capacity: { cores: { value: '4', ...(requestPolicy !== undefined ? { requestPolicy } : {}) } },
});
const consumed = (d: SliceDevice, cores?: string): string | undefined => {
  const value = consumedCapacity(cores === undefined ? undefined : { cores }, d).get('cores');
  return value === undefined ? undefined : formatQuantity(value);
};

// Upstream's calculateConsumedCapacity / violatesPolicy (k8s.io/dynamic-resource-allocation, consumable capacity):
// a request is rounded up to min + n·step in exact decimal arithmetic, whatever the scale.
describe('consumable capacity as upstream rounds and checks it', () => {
  it('takes the default, else the whole capacity, for a claim that requests nothing', () => {
    expect(consumed(device({ default: '1' }))).toBe('1');
    expect(consumed(device(undefined))).toBe('4');
  });

  it('rounds a request up to min plus whole steps, exactly for fractional requests and steps', () => {
    const range = device({ default: '1', validRange: { min: '1', step: '500m' } });
    expect(consumed(range, '200m')).toBe('1');
    expect(consumed(range, '1200m')).toBe('1500m');
    expect(consumed(range, '2')).toBe('2');
    const whole = device({ default: '1', validRange: { min: '0', step: '1' } });
    expect(consumed(whole, '2500m')).toBe('3');
    expect(consumed(whole, '2')).toBe('2');
  });

  it('rounds up to the next valid value, and refuses past the last one or past max', () => {
    const values = device({ default: '1', validValues: ['1', '2', '4'] });
    expect(consumed(values, '3')).toBe('4');
    expect(capacityFits({ cores: '3' }, values, undefined, undefined)).toBe(true);
    expect(capacityFits({ cores: '5' }, values, undefined, undefined)).toBe(false);
    const max = device({ default: '1', validRange: { min: '1', max: '2', step: '500m' } });
    expect(capacityFits({ cores: '2' }, max, undefined, undefined)).toBe(true);
    expect(capacityFits({ cores: '2100m' }, max, undefined, undefined)).toBe(false);
  });

  it('counts what other claims hold and what this allocation takes against the capacity', () => {
    const d = device({ default: '1', validRange: { min: '500m', step: '500m' } });
    const held = consumedCapacity({ cores: '2500m' }, d);
    expect(capacityFits({ cores: '1500m' }, d, held, undefined)).toBe(true);
    expect(capacityFits({ cores: '1600m' }, d, held, undefined)).toBe(false);
    expect(capacityFits({ cores: '1' }, d, held, consumedCapacity({ cores: '1' }, d))).toBe(false);
    expect(capacityFits({ memory: '1' }, d, undefined, undefined)).toBe(false);
  });
});
