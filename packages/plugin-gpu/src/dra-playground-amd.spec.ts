import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  claimManifest,
  claimRequest,
  deviceClassManifest,
  kubectl,
  podManifest,
  startPlaygroundDriver,
  type PlaygroundDriver,
} from '@kdp/dra/testing';
import type { SysfsFixture } from '@kdp/topology/testing';
import { gpuPlugin } from './plugin';
import { buildMi300xMachine, MI300X_GPUS, switchMi300xModes } from './testing/amd-machines';
import { rootFlags } from './testing/fixture-devices';

jest.setTimeout(180_000);

// Issue 28, partitionable devices (KEP 4815) on AMD: `gpu-device-plugin serve --mode dra` on an 8 × MI300X fixture
// in CPX × NPS4 publishes each GPU as a counter set, the whole GPU and its eight compute partitions (XCPs) each
// consuming their share. The DRA playground's scheduler, with real CEL and kubectl, must then keep a GPU and one of
// its partitions apart, while two partitions of one GPU fit; and the slices follow a change of mode.

const DRIVER = 'gpu.kdp.dev';
const [GPU_A, GPU_B] = MI300X_GPUS;

/** A CEL selector: devices of one GPU (by the standard PCI attribute), a whole GPU or a partition. */
const on = (address: string, scope: 'gpu' | 'partition'): string =>
  `device.attributes["resource.kubernetes.io"].pciBusID == "${address}" && ` +
  `device.attributes["${DRIVER}"].scope == "${scope}"`;

/** A claim of one device meeting `selector`, and a pod using it. */
const claimAndPod = (name: string, selector: string): string =>
  [
    claimManifest(name, claimRequest('gpu', selector, DRIVER)),
    podManifest(name, [name], [[name, 'gpu']]),
  ].join('---');

interface PodJson {
  spec: { nodeName?: string };
  status: {
    phase?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

interface SliceJson {
  spec: {
    nodeName?: string;
    driver: string;
    pool: { name: string; generation: number; resourceSliceCount: number };
    devices?: {
      name: string;
      attributes?: Record<string, { string?: string }>;
      consumesCounters?: { counterSet: string; counters: Record<string, { value: string }> }[];
    }[];
    sharedCounters?: { name: string; counters: Record<string, { value: string }> }[];
  };
}

let dir: string;
let fixture: SysfsFixture;
let setup: PlaygroundDriver;

const get = async <T>(kind: string, name?: string): Promise<T> =>
  JSON.parse(await kubectl(setup.kubeconfig, ['get', kind, ...(name ? [name] : []), '-o', 'json'])) as T;

/** Polls `get` until `done` accepts its answer; rejects with the last one after 90 s. */
async function waitFor<T>(what: string, get: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const value = await get();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} not as expected in time:\n${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const running = (name: string): Promise<PodJson> =>
  waitFor(
    `pod ${name}`,
    () => get<PodJson>('pod', name),
    (p) => p.status.phase === 'Running',
  );

const unschedulable = (name: string): Promise<PodJson> =>
  waitFor(
    `pod ${name}`,
    () => get<PodJson>('pod', name),
    (p) => (p.status.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.status === 'False'),
  );

/**
 * Whether `list` is one whole pool at one generation, as the scheduler takes a pool: a republication updates its
 * slices one by one, and until the last is written the pool mixes two generations.
 */
const wholePool = (list: readonly SliceJson[]): boolean =>
  new Set(list.map((s) => s.spec.pool.generation)).size === 1 &&
  list.length === list[0]?.spec.pool.resourceSliceCount;

/** The node's slices of the driver. */
const slices = async (): Promise<SliceJson[]> =>
  (await get<{ items: SliceJson[] }>('resourceslices')).items.filter(
    (s) => s.spec.driver === DRIVER && s.spec.nodeName === setup.nodeName,
  );

/** The published devices of one GPU: `scope` and what each consumes of `xcc`. */
const devicesOf = (list: readonly SliceJson[], address: string): string[] =>
  list
    .flatMap((s) => s.spec.devices ?? [])
    .filter((d) => d.attributes?.['resource.kubernetes.io/pciBusID']?.string === address)
    .map(
      (d) =>
        `${d.attributes?.['scope']?.string ?? '-'}:${d.consumesCounters?.[0]?.counters['xcc']?.value ?? '-'}`,
    )
    .sort();

describe('AMD MI300X partitions under DRA (KEP 4815) in the DRA playground, with real kubectl', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-playground-'));
    fixture = buildMi300xMachine({ modes: { compute: 'CPX', memory: 'NPS4' } });
    setup = await startPlaygroundDriver({
      plugin: gpuPlugin,
      driver: DRIVER,
      dir: join(dir, 'node'),
      flags: [...rootFlags(fixture), '--poll-interval', '1s'],
      devRoot: fixture.devRoot,
      procRoot: fixture.procRoot,
    });
    await kubectl(setup.kubeconfig, ['apply', '-f', '-'], deviceClassManifest(DRIVER));
  });
  afterAll(async () => {
    await setup?.stop();
    fixture?.remove();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('publishes each GPU as a counter set in slices of their own, the whole GPU and its 8 XCPs consuming it', async () => {
    const list = await waitFor('slices', slices, (l) => l.some((s) => s.spec.sharedCounters !== undefined));
    const sets = list.flatMap((s) => s.spec.sharedCounters ?? []);
    expect(sets).toHaveLength(8);
    expect(sets.find((s) => s.name === 'gpu-0000-05-00-0')?.counters).toEqual({
      'memory-partitions': { value: '4' },
      xcc: { value: '8' },
    });
    expect(
      list.filter((s) => s.spec.sharedCounters !== undefined).every((s) => s.spec.devices === undefined),
    ).toBe(true);
    expect(new Set(list.map((s) => s.spec.pool.resourceSliceCount))).toEqual(new Set([list.length]));
    expect(devicesOf(list, GPU_A)).toEqual(['gpu:8', ...Array.from({ length: 8 }, () => 'partition:1')]);
  });

  it('a whole GPU and one of its XCPs cannot both be allocated: the second claim stays Pending with the scheduler’s reason', async () => {
    await kubectl(setup.kubeconfig, ['apply', '-f', '-'], claimAndPod('whole', on(GPU_A, 'gpu')));
    expect((await running('whole')).spec.nodeName).toBe(setup.nodeName);
    await kubectl(
      setup.kubeconfig,
      ['apply', '-f', '-'],
      claimAndPod('xcp-of-whole', on(GPU_A, 'partition')),
    );
    const pod = await unschedulable('xcp-of-whole');
    expect(pod.spec.nodeName).toBeUndefined();
    const scheduled = pod.status.conditions?.find((c) => c.type === 'PodScheduled');
    expect(scheduled?.reason).toBe('Unschedulable');
    expect(scheduled?.message).toMatch(/^0\/2 nodes are available: .*cannot allocate all claims/);
  });

  it('two XCP claims on one GPU both fit, on distinct partitions', async () => {
    await kubectl(
      setup.kubeconfig,
      ['apply', '-f', '-'],
      [claimAndPod('xcp-1', on(GPU_B, 'partition')), claimAndPod('xcp-2', on(GPU_B, 'partition'))].join(
        '---',
      ),
    );
    await running('xcp-1');
    await running('xcp-2');
    type Claim = { status: { allocation: { devices: { results: { device: string }[] } } } };
    const devices = await Promise.all(
      ['xcp-1', 'xcp-2'].map(
        async (n) => (await get<Claim>('resourceclaim', n)).status.allocation.devices.results[0]?.device,
      ),
    );
    expect(new Set(devices).size).toBe(2);
  });

  it('moves with the mode: after a switch to SPX × NPS1 the slices hold one device per GPU consuming all of it', async () => {
    switchMi300xModes(fixture, { modes: { compute: 'SPX', memory: 'NPS1' } });
    const list = await waitFor(
      'slices in SPX',
      slices,
      (l) => wholePool(l) && devicesOf(l, GPU_A).length === 1,
    );
    expect(devicesOf(list, GPU_A)).toEqual(['gpu:8']);
    expect(
      list.flatMap((s) => s.spec.sharedCounters ?? []).find((s) => s.name === 'gpu-0000-05-00-0')?.counters,
    ).toEqual({
      'memory-partitions': { value: '1' },
      xcc: { value: '8' },
    });
  });
});
