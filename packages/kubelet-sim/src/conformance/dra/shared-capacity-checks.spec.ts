import type { ApiObject } from './dra-check-api';
import { checkSharedCapacity } from './shared-capacity-checks';

const slice = (...devices: object[]): ApiObject =>
  ({
    metadata: { name: 's' },
    spec: { devices: devices.map((d, i) => ({ name: `d${i}`, ...d })) },
  }) as ApiObject;
const shared = (capacity?: object): object => ({
  allowMultipleAllocations: true,
  ...(capacity === undefined ? {} : { capacity }),
});

describe('checkSharedCapacity', () => {
  it('passes when no device is shared, and with valid request policies', () => {
    expect(checkSharedCapacity([slice({}, { capacity: { memory: { value: '1Gi' } } })])).toMatchObject({
      id: 'shared-capacity',
      status: 'pass',
      reason: 'no published device is shared (allowMultipleAllocations)',
    });
    const check = checkSharedCapacity([
      slice(
        shared({ memory: { value: '80Gi' } }),
        shared({
          memory: {
            value: '80Gi',
            requestPolicy: { default: '1Gi', validRange: { min: '1Gi', max: '80Gi', step: '1Gi' } },
          },
          bandwidth: {
            value: '100G',
            requestPolicy: { default: '10G', validValues: ['10G', '25G', '100G'] },
          },
          ports: { value: '4', requestPolicy: { default: '1' } },
        }),
        shared({ cores: { value: '8', requestPolicy: { default: '500m', validRange: { min: '500m' } } } }),
      ),
    ]);
    expect(check).toMatchObject({
      status: 'pass',
      reason: '3 shared device(s), capacities and request policies valid',
    });
  });

  it('warns about a shared device without capacity, and about each policy upstream refuses', () => {
    const check = checkSharedCapacity([
      slice(
        shared(),
        shared({
          a: { value: '8', requestPolicy: { default: '1', validValues: ['1'], validRange: { min: '1' } } },
          b: { value: '8', requestPolicy: { validValues: ['1', '2'] } },
          c: { value: '8', requestPolicy: { default: '3', validValues: ['2', '2', '9'] } },
          d: {
            value: '8',
            requestPolicy: {
              default: '1',
              validValues: ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11'],
            },
          },
        }),
        shared({
          e: { value: '8', requestPolicy: { default: '1', validRange: { max: '4' } } },
          f: { value: '8', requestPolicy: { default: '1', validRange: { min: '2', max: '1' } } },
          g: { value: '8', requestPolicy: { default: '2', validRange: { min: '1', max: '8', step: '2' } } },
          h: { value: '8', requestPolicy: { default: '1', validRange: { min: '1', step: '0' } } },
          i: { value: 'lots' },
        }),
      ),
    ]);
    expect(check.status).toBe('warn');
    expect(check.reason).toContain('d0: no capacity to share');
    expect(check.reason).toContain(
      'd1: capacity a (both validValues and validRange, not exactly one), ' +
        'capacity b (no default, required with validValues or validRange), ' +
        'capacity c (validValues not strictly ascending at "2", validValues "9" above the capacity, default not one of validValues), ' +
        'capacity d (11 validValues, at most 10)',
    );
    expect(check.reason).toContain(
      'd2: capacity e (validRange without min), ' +
        'capacity f (default below validRange.min, validRange.max below min), ' +
        'capacity g (default not min plus a whole number of steps, validRange.max not min plus a whole number of steps), ' +
        'capacity h (validRange.step not positive), ' +
        'capacity i (value "lots" is not a quantity);',
    );
    expect(check.reason).toMatch(/the API server refuses such a slice \(422\)/);
  });
});
