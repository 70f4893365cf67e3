import { canonicalQuantity, quantitiesEqual } from './canonical-quantity';
import { compareDeviceNames, deviceKey, splitPool, toApiDevice } from './pool-slices';

describe('toApiDevice', () => {
  it('maps values to int, bool, string and version, adds the standard PCI attributes, sorts keys', () => {
    const device = toApiDevice({
      name: 'gpu-0',
      attributes: { z: 'last', index: 3, shared: false, fw: { version: '1.2.3' } },
      capacity: { memory: '80Gi', cores: 4 },
      pciBusId: '0000:3b:00.0',
      pcieRoot: 'pci0000:3a',
    });
    expect(JSON.stringify(device)).toBe(
      JSON.stringify({
        name: 'gpu-0',
        attributes: {
          fw: { version: '1.2.3' },
          index: { int: 3 },
          'resource.kubernetes.io/pciBusID': { string: '0000:3b:00.0' },
          'resource.kubernetes.io/pcieRoot': { string: 'pci0000:3a' },
          shared: { bool: false },
          z: { string: 'last' },
        },
        capacity: { cores: { value: '4' }, memory: { value: '80Gi' } },
      }),
    );
    expect(toApiDevice({ name: 'bare' })).toEqual({ name: 'bare' });
  });

  it('writes consumesCounters sorted by counter set, counters as quantities; refuses 33 counters in one', () => {
    const device = toApiDevice({
      name: 'xcp-1',
      consumesCounters: [
        { counterSet: 'gpu-1', counters: { xcp: 1 } },
        { counterSet: 'gpu-0', counters: { memory: '24Gi', xcp: 2 } },
      ],
    });
    expect(JSON.stringify(device)).toBe(
      JSON.stringify({
        name: 'xcp-1',
        consumesCounters: [
          { counterSet: 'gpu-0', counters: { memory: { value: '24Gi' }, xcp: { value: '2' } } },
          { counterSet: 'gpu-1', counters: { xcp: { value: '1' } } },
        ],
      }),
    );
    expect(deviceKey(device)).toBe(
      deviceKey({
        name: 'xcp-1',
        consumesCounters: [
          { counterSet: 'gpu-0', counters: { xcp: { value: '2' }, memory: { value: '24576Mi' } } },
          { counterSet: 'gpu-1', counters: { xcp: { value: '1' } } },
        ],
      }),
    );
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, 1]));
    expect(() => toApiDevice({ name: 'd', consumesCounters: [{ counterSet: 's', counters: many }] })).toThrow(
      'device d: consumption of counter set s has 33 counters, more than 32',
    );
  });

  it('writes taints in the API order, without empty values', () => {
    expect(
      JSON.stringify(
        toApiDevice({
          name: 'gpu-1',
          taints: [
            {
              effect: 'NoExecute',
              timeAdded: '2027-01-15T08:00:00Z',
              value: 'Xid-79',
              key: 'kdp.dev/unhealthy',
            },
            { key: 'kdp.dev/unhealthy', value: '', effect: 'NoSchedule' },
          ],
        }),
      ),
    ).toBe(
      JSON.stringify({
        name: 'gpu-1',
        taints: [
          {
            key: 'kdp.dev/unhealthy',
            value: 'Xid-79',
            effect: 'NoExecute',
            timeAdded: '2027-01-15T08:00:00Z',
          },
          { key: 'kdp.dev/unhealthy', effect: 'NoSchedule' },
        ],
      }),
    );
    expect(toApiDevice({ name: 'bare', taints: [] })).toEqual({ name: 'bare' });
  });

  it('refuses a number that is not an integer', () => {
    expect(() => toApiDevice({ name: 'd', attributes: { ratio: 0.5 } })).toThrow(
      'device d: attribute ratio is 0.5, not an integer',
    );
  });
});

describe('splitPool', () => {
  it('sorts naturally and cuts at the limit; no devices is one empty slice', () => {
    const names = ['d10', 'd9', 'd1', 'd2', 'd100'];
    expect(
      splitPool(
        names.map((name) => ({ name })),
        2,
      ).map((s) => s.map((d) => d.name)),
    ).toEqual([['d1', 'd2'], ['d9', 'd10'], ['d100']]);
    expect(splitPool([])).toEqual([[]]);
    expect(
      splitPool(Array.from({ length: 257 }, (_, i) => ({ name: `x${i}` }))).map((s) => s.length),
    ).toEqual([128, 128, 1]);
  });

  it('cuts a slice holding a device that consumes counters at 64 devices, others at the limit given', () => {
    const uses = [{ counterSet: 's', counters: { n: 1 } }];
    const plain = Array.from({ length: 200 }, (_, i) => ({ name: `a${i}` }));
    const counted = Array.from({ length: 100 }, (_, i) => ({ name: `b${i}`, consumesCounters: uses }));
    // a0…a127; a128…a199 (72 plain: a counted device would make it 73 > 64, so it starts the next); b0…b63; the rest.
    expect(splitPool([...plain, ...counted]).map((s) => s.length)).toEqual([128, 72, 64, 36]);
    expect(splitPool(counted, 10).map((s) => s.length)).toEqual(Array.from({ length: 10 }, () => 10));
  });

  it('cuts a slice holding a tainted device at 64, as the API server allows no more', () => {
    const devices = Array.from({ length: 130 }, (_, i) => ({ name: `x${i}` }));
    expect(splitPool(devices).map((s) => s.length)).toEqual([128, 2]);
    const tainted = devices.map((d, i) =>
      i === 0 ? { ...d, taints: [{ key: 'kdp.dev/unhealthy', effect: 'NoSchedule' as const }] } : d,
    );
    expect(splitPool(tainted).map((s) => s.length)).toEqual([64, 66]);
    expect(splitPool(tainted, 10).map((s) => s.length)[0]).toBe(10);
  });

  it('refuses a name listed twice', () => {
    expect(() => splitPool([{ name: 'a' }, { name: 'a' }])).toThrow('device a is listed twice');
  });

  it('orders device names without the locale', () => {
    expect(['vf-10', 'vf-2', 'VF-1', 'vf-02', 'vf'].sort(compareDeviceNames)).toEqual([
      'VF-1',
      'vf',
      'vf-02',
      'vf-2',
      'vf-10',
    ]);
  });
});

describe('deviceKey and quantities', () => {
  it('ignores key order, empty fields and the spelling of quantities', () => {
    const sent = toApiDevice({ name: 'd', attributes: { a: 1, b: 'x' }, capacity: { memory: '1Gi' } });
    const back = {
      capacity: { memory: { value: '1024Mi' } },
      attributes: { b: { string: 'x' }, a: { int: 1 } },
      name: 'd',
      taints: [],
    };
    expect(deviceKey(back)).toBe(deviceKey(sent));
    expect(deviceKey({ ...back, attributes: { a: { int: 2 } } })).not.toBe(deviceKey(sent));
    expect(deviceKey({ ...back, capacity: { memory: { value: '1G' } } })).not.toBe(deviceKey(sent));
  });

  it('compares quantities by value', () => {
    expect(quantitiesEqual('1Gi', '1073741824')).toBe(true);
    expect(quantitiesEqual('0.5', '500m')).toBe(true);
    expect(quantitiesEqual('1k', '1e3')).toBe(true);
    expect(quantitiesEqual('1E', '1e18')).toBe(true);
    expect(quantitiesEqual('1Ki', '1k')).toBe(false);
    expect(quantitiesEqual('-2', '2')).toBe(false);
    expect(canonicalQuantity('1.50')).toBe('15e-1');
    expect(canonicalQuantity('not a quantity')).toBe('not a quantity');
  });
});
