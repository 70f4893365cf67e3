import type { ApiObject } from './dra-check-api';
import { checkSlices, poolsComplete, publishedDevices } from './slice-checks';

const node = { driver: 'gpu.example.com', node: 'node-a', nodeUid: 'uid-a' };
const owner = [{ apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'uid-a' }];
const slice = (
  name: string,
  pool: { name?: string; generation?: number; resourceSliceCount?: number },
  devices: Array<Record<string, unknown>>,
  extra: { spec?: Record<string, unknown>; ownerReferences?: unknown[] } = {},
): ApiObject => ({
  metadata: {
    name,
    ownerReferences: (extra.ownerReferences ?? owner) as typeof owner,
  },
  spec: {
    driver: 'gpu.example.com',
    nodeName: 'node-a',
    pool: { name: 'node-a', generation: 1, resourceSliceCount: 1, ...pool },
    devices,
    ...extra.spec,
  },
});
const dev = (name: string, attributes: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  attributes,
});
const statusOf = (slices: ApiObject[]): Record<string, string> =>
  Object.fromEntries(checkSlices(slices, node).map((c) => [c.id, c.status]));

describe('slice checks', () => {
  it('pass a complete pool of valid, owned slices; standard attributes skip without PCI devices', () => {
    const slices = [
      slice('a', { resourceSliceCount: 2 }, [dev('d0')]),
      slice('b', { resourceSliceCount: 2 }, [dev('d1')]),
    ];
    expect(poolsComplete(slices)).toBe(true);
    expect(publishedDevices(slices).map((d) => `${d.pool}/${d.device}`)).toEqual(['node-a/d0', 'node-a/d1']);
    expect(statusOf(slices)).toEqual({
      'slices-valid': 'pass',
      'pool-consistent': 'pass',
      'slice-size': 'pass',
      'slice-owner': 'pass',
      'standard-attributes': 'skip',
    });
  });

  it('see counters a pool lacks or a device overdraws, across the slices of a pool (Kubernetes 1.35 layout)', () => {
    const { devices: _none, ...spec } = (slice('s', {}, []).spec ?? {}) as Record<string, unknown>;
    const counters = {
      ...slice('sets', { resourceSliceCount: 2 }, []),
      spec: {
        ...spec,
        pool: { name: 'node-a', generation: 1, resourceSliceCount: 2 },
        sharedCounters: [{ name: 'gpu-0', counters: { xcc: { value: '8' } } }],
      },
    };
    const uses = (set: string, counter: string, value: string) => ({
      consumesCounters: [{ counterSet: set, counters: { [counter]: { value } } }],
    });
    const devices = (...list: Record<string, unknown>[]) => slice('devices', { resourceSliceCount: 2 }, list);
    const good = devices(
      { ...dev('whole'), ...uses('gpu-0', 'xcc', '8') },
      { ...dev('xcp'), ...uses('gpu-0', 'xcc', '1') },
    );
    expect(statusOf([counters, good])['pool-consistent']).toBe('pass');
    const bad = devices(
      { ...dev('a'), ...uses('gpu-1', 'xcc', '1') },
      { ...dev('b'), ...uses('gpu-0', 'cu', '1') },
      { ...dev('c'), ...uses('gpu-0', 'xcc', '9') },
    );
    expect(checkSlices([counters, bad], node)[1]?.reason).toBe(
      'pool node-a: device a consumes from counter set gpu-1, which the pool lacks; ' +
        'pool node-a: device b consumes gpu-0/cu, which the set lacks; ' +
        'pool node-a: device c consumes more gpu-0/xcc than the set has; ' +
        'the scheduler treats an incomplete or inconsistent pool as unusable (required: dra.md#control-plane)',
    );
  });

  it('keep only the newest generation of a pool and see a missing slice or a duplicate device', () => {
    const old = slice('old', { generation: 1 }, [dev('d0')]);
    const half = slice('new', { generation: 2, resourceSliceCount: 2 }, [dev('d0')]);
    expect(poolsComplete([old, half])).toBe(false);
    expect(publishedDevices([old, half])).toHaveLength(1);
    const [, pool] = checkSlices([old, half], node);
    expect(pool).toMatchObject({ id: 'pool-consistent', status: 'fail' });
    expect(pool?.reason).toMatch(/^pool node-a generation 2: 1 slice\(s\), resourceSliceCount 2; /);
    const twice = [
      slice('a', { resourceSliceCount: 2 }, [dev('d0')]),
      slice('b', { resourceSliceCount: 2 }, [dev('d0')]),
    ];
    expect(checkSlices(twice, node)[1]?.reason).toMatch(/^pool node-a: device d0 listed twice; /);
  });

  it('fail a slice the API server would refuse, of another node or driver, or too large (slice-size only)', () => {
    const bad = slice('bad', {}, [dev('Not_A_Label')], { spec: { nodeName: 'node-b' } });
    const checks = checkSlices([bad], node);
    expect(checks[0]).toMatchObject({ id: 'slices-valid', status: 'fail' });
    expect(checks[0]?.reason).toMatch(/^bad: spec\.devices\[0\]\.name: .*; spec\.nodeName is "node-b"/);
    const big = slice(
      'big',
      {},
      Array.from({ length: 129 }, (_, i) => dev(`d${i}`)),
    );
    expect(statusOf([big])).toMatchObject({ 'slices-valid': 'pass', 'slice-size': 'fail' });
    const tainted = slice(
      'tainted',
      {},
      Array.from({ length: 65 }, (_, i) => ({
        ...dev(`d${i}`),
        taints: [{ key: 'k', effect: 'NoSchedule' }],
      })),
    );
    expect(checkSlices([tainted], node)[2]?.reason).toMatch(/^tainted has 65 devices \(limit 64\)/);
  });

  it('warn about a slice without an owner reference to this Node, and PCI devices without standard attributes', () => {
    const pci = { 'gpu.example.com/pciAddress': { string: '0000:3b:00.0' } };
    const slices = [
      slice('a', {}, [dev('d0', pci)], {
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'other' }],
      }),
    ];
    const checks = checkSlices(slices, node);
    expect(checks[3]).toMatchObject({ id: 'slice-owner', status: 'warn' });
    expect(checks[3]?.reason).toMatch(/^a without an owner reference to Node node-a \(uid uid-a\)/);
    expect(checks[4]).toMatchObject({ id: 'standard-attributes', status: 'warn' });
    expect(checks[4]?.reason).toMatch(/^node-a\/d0 lack resource\.kubernetes\.io\/pciBusID or /);
    const standard = {
      'resource.kubernetes.io/pciBusID': { string: '0000:3b:00.0' },
      'resource.kubernetes.io/pcieRoot': { string: 'pci0000:3a' },
    };
    expect(statusOf([slice('a', {}, [dev('d0', standard)])])['standard-attributes']).toBe('pass');
  });
});
