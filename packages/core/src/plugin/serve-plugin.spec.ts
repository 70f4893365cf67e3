import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { startPluginRun, type PluginRun } from '../testing/start-plugin-run';
import { definePlugin } from './define-plugin';
import { resourceCountLabels } from './resource-count-labels';

// A plugin with no watch at all: every change must come through its change probe. Each directory
// class/thing/<id> is a device, Healthy while its `state` reads `up`.
const probed = definePlugin({
  name: 'probed',
  binary: 'probed-device-plugin',
  title: 'Probed test plugin',
  version: '1.0.0',
  scan: {
    interval: '100ms',
    run: async ({ host }) =>
      Promise.all(
        (await host.sysfs.list('class/thing')).map(async (id) => ({
          id,
          state: (await host.sysfs.read(`class/thing/${id}/state`))?.trim(),
        })),
      ),
    probe: (things) => ({
      sysfs: { list: ['class/thing'], read: things.map((t) => `class/thing/${t.id}/state`) },
    }),
  },
  resources: (things) => ({
    resources: [
      {
        name: 'example.com/thing',
        devices: things.map((t) => ({ id: t.id, health: t.state === 'up' ? 'Healthy' : 'Unhealthy' })),
      },
    ],
  }),
});

let fixture: SysfsFixture;
let dp: string;
let sim: KubeletSim;
let run: PluginRun | undefined;
beforeEach(async () => {
  fixture = createSysfsFixture();
  dp = mkdtempSync(join(tmpdir(), 'kdp-probe-'));
  sim = await createKubeletSim({ dir: dp });
});
afterEach(async () => {
  if (run !== undefined) {
    run.signal('SIGTERM');
    await run.done;
  }
  run = undefined;
  await sim.close();
  fixture.remove();
  rmSync(dp, { recursive: true, force: true });
});

/** The value of one metric series, from the plugin's /metrics. */
async function metric(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** Polls `read` until `accept` holds (each read waits on the plugin's own probe ticks); generous deadline. */
async function eventually<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('servePlugin with a change probe', () => {
  it('scans fully only when the probe sees a change, and every probed change reaches the kubelet', async () => {
    fixture.write('class/thing/a/state', 'up\n');
    fixture.write('class/thing/b/state', 'up\n');
    run = startPluginRun(probed, [
      'serve',
      ...['--sysfs-root', fixture.root, '--dev-root', fixture.devRoot, '--device-plugin-dir', dp],
      ...['--metrics-address', '127.0.0.1:0'],
    ]);
    const url = String(
      (await run.waitForLog((l) => l['msg'] === 'serving /metrics, /healthz and /readyz'))['url'],
    );
    await sim.until('example.com/thing', (s) => s.healthy.length === 2);
    const scans = (trigger: string) => metric(url, `kdp_scans_total{plugin="probed",trigger="${trigger}"}`);
    const unchanged = () => metric(url, 'kdp_change_probes_total{plugin="probed",outcome="unchanged"}');

    // The first probe scans once more (its baseline was read after the first scan), then only probes run.
    await eventually(unchanged, (n) => n >= 1, 'an unchanged probe');
    expect(await scans('probe')).toBe(1);
    // Idle, and a change to a file nobody probes: probes run, no full scan does.
    const idleFrom = await unchanged();
    fixture.write('class/thing/b/other', 'ignored\n');
    await eventually(unchanged, (n) => n >= idleFrom + 10, 'unchanged probes');
    expect(await scans('probe')).toBe(1);
    expect(await scans('start')).toBe(1);

    // A probed attribute: the one full scan it causes carries it to the kubelet.
    fixture.write('class/thing/b/state', 'down\n');
    await sim.until('example.com/thing', (s) => s.unhealthy.includes('b'));
    expect(await scans('probe')).toBe(2);
    fixture.write('class/thing/c/state', 'up\n'); // a new directory entry in a probed listing
    await sim.until('example.com/thing', (s) => s.healthy.includes('c'));
    fixture.write('class/thing/b/state', 'up\n');
    await sim.until('example.com/thing', (s) => s.healthy.length === 3);
    expect(await scans('probe')).toBeGreaterThanOrEqual(3);
    expect(await scans('interval')).toBe(0);
  }, 60_000);

  it('sees a change that lands during the first scan, after the scan read it', async () => {
    fixture.write('class/thing/a/state', 'up\n');
    let scans = 0;
    // The first scan reads `up`, then the device goes down before the scan returns (a driver loading or
    // unloading while the plugin starts): the probe's first baseline already reads `down`.
    const racing = definePlugin({
      ...probed,
      scan: {
        ...probed.scan,
        run: async (ctx) => {
          const things = await probed.scan.run(ctx);
          if (++scans === 1) fixture.write('class/thing/a/state', 'down\n');
          return things;
        },
      },
    });
    run = startPluginRun(racing, [
      'serve',
      ...['--sysfs-root', fixture.root, '--dev-root', fixture.devRoot, '--device-plugin-dir', dp],
    ]);
    // Without a second look the device stays Healthy for good: nothing the probe reads changes any more.
    await sim.until('example.com/thing', (s) => s.unhealthy.includes('a'));
    expect(scans).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

// The probed plugin with node feature labels: a count per resource, and one label NFD could not take.
const labelled = definePlugin({
  ...probed,
  name: 'labelled',
  binary: 'labelled-device-plugin',
  features: (set) => ({ ...resourceCountLabels(set), 'no-prefix': 'x' }),
});

describe('servePlugin with --nfd-features-dir', () => {
  let features: string;
  beforeEach(() => {
    features = mkdtempSync(join(tmpdir(), 'kdp-features-'));
  });
  afterEach(() => rmSync(features, { recursive: true, force: true }));
  const roots = () => [
    '--sysfs-root',
    fixture.root,
    '--dev-root',
    fixture.devRoot,
    '--device-plugin-dir',
    dp,
  ];
  const file = () => join(features, 'kdp-labelled');
  const read = async (): Promise<string> => {
    try {
      return readFileSync(file(), 'utf8');
    } catch {
      return '';
    }
  };

  it('writes the feature file when the labels change, drops bad labels with a warning, removes it on SIGTERM', async () => {
    fixture.write('class/thing/a/state', 'up\n');
    fixture.write('class/thing/b/state', 'up\n');
    run = startPluginRun(labelled, ['serve', ...roots(), '--nfd-features-dir', features]);
    const written = await run.waitForLog((l) => l['msg'] === 'node feature labels written');
    expect(written).toMatchObject({ file: file(), labels: 1 });
    expect(await read()).toBe(
      '# labelled-device-plugin 1.0.0: node feature labels, removed when it stops\nexample.com/thing.count=2\n',
    );
    await run.waitForLog((l) => String(l['msg']).startsWith('node feature label "no-prefix" dropped'));

    fixture.write('class/thing/c/state', 'up\n'); // a new device: a new count
    await eventually(read, (text) => text.includes('example.com/thing.count=3\n'), 'the feature file');
    fixture.write('class/thing/b/state', 'down\n'); // health only: the labels stay as they are
    await sim.until('example.com/thing', (s) => s.unhealthy.includes('b'));
    expect(readdirSync(features)).toEqual(['kdp-labelled']); // no temporary file left behind

    run.signal('SIGTERM');
    expect(await run.done).toBe(0);
    const logs = run.logs();
    run = undefined;
    expect(readdirSync(features)).toEqual([]);
    // Written twice (2 things, then 3), never for the health change.
    expect(logs.filter((l) => l['msg'] === 'node feature labels written')).toHaveLength(2);
  }, 60_000);

  it('writes one file per plugin in a multi-plugin binary; discover refuses the flag', async () => {
    fixture.write('class/thing/a/state', 'up\n');
    const other = definePlugin({
      ...labelled,
      name: 'other',
      resources: () => ({
        resources: [{ name: 'example.com/other', devices: [{ id: 'o', health: 'Healthy' }] }],
      }),
    });
    const program = { binary: 'multi', title: 'Multi', version: '1.0.0', plugins: [labelled, other] };
    const discover = startPluginRun(program, [
      ...['discover', '--sysfs-root', fixture.root, '--dev-root', fixture.devRoot],
      ...['--nfd-features-dir', features],
    ]);
    expect(await discover.done).toBe(2);
    expect(discover.stderr()).toContain('--nfd-features-dir applies to serve only');

    run = startPluginRun(program, ['serve', ...roots(), '--nfd-features-dir', features]);
    // Dot-named temporary files of an atomic write in flight do not count (NFD skips them too).
    await eventually(
      async () =>
        readdirSync(features)
          .filter((name) => !name.startsWith('.'))
          .sort(),
      (names) => names.length === 2,
      'the feature files',
    );
    expect(
      readdirSync(features)
        .filter((name) => !name.startsWith('.'))
        .sort(),
    ).toEqual(['kdp-labelled', 'kdp-other']);
    expect(readFileSync(join(features, 'kdp-other'), 'utf8')).toContain('\nexample.com/other.count=1\n');
    run.signal('SIGTERM');
    expect(await run.done).toBe(0);
    run = undefined;
    expect(readdirSync(features)).toEqual([]);
  }, 60_000);
});
