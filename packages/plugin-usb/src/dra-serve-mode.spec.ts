import { EventEmitter } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCdiDevices, startPluginRun } from '@kdp/core/testing';
import type { DraServeModeEvent } from '@kdp/dra';
import { createDraTestNode, type DraTestNode } from '@kdp/dra/testing';
import { createApiServer, createKubeletSim, type ApiServer, type KubeletSim } from '@kdp/kubelet-sim';
import { usbPlugin } from './plugin';
import { addSampleMachine, SAMPLE_CONFIG } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

jest.setTimeout(60_000);

const NODE = 'node-u';
const DRIVER = 'usb.kdp.dev';
const RESOURCES = ['example.com/ftdi', 'example.com/keyboard'] as const;

type SliceDevice = { name: string; attributes: Record<string, Record<string, unknown>> };
type Reference = { devices: unknown[]; mounts: unknown[]; env: string[] };
const byPath = <T>(list: readonly T[]): T[] =>
  [...list].sort((a, b) =>
    (a as { containerPath: string }).containerPath < (b as { containerPath: string }).containerPath ? -1 : 1,
  );

describe('usb-device-plugin serve --mode dra against kubelet-sim', () => {
  let usb: UsbFixture;
  let base: string;
  let api: ApiServer;
  let sim: KubeletSim;
  let node: DraTestNode | undefined;
  let cdiDir: string;
  /** The device-plugin mode's Allocate of one device, by resource and device ID. */
  const reference = new Map<string, Reference>();
  const events = new EventEmitter();
  const published = new Set<string>();

  const sliceOf = (resource: string): { pool: string; devices: SliceDevice[] } => {
    const pool = `${NODE}/${resource}`;
    const slices = api.store
      .list('resourceslices')
      .items.map((s) => (s as unknown as { spec: { pool: { name: string }; devices: SliceDevice[] } }).spec)
      .filter((spec) => spec.pool.name === pool);
    return { pool, devices: slices.flatMap((spec) => spec.devices) };
  };

  beforeAll(async () => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    base = mkdtempSync(join(tmpdir(), 'kdp-udra-'));
    const config = join(base, 'usb.yaml');
    writeFileSync(config, SAMPLE_CONFIG);
    const common = [
      ...['--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot],
      ...['--config', config, '--poll-interval', '1h'],
    ];
    const dpDir = join(base, 'dp');
    const dpSim = await createKubeletSim({ dir: dpDir });
    const dp = startPluginRun(usbPlugin, ['serve', ...common, '--device-plugin-dir', dpDir]);
    try {
      for (const resource of RESOURCES) {
        const state = await dpSim.until(resource, (s) => s.healthy.length > 0);
        for (let i = 0; i < state.healthy.length; i += 1) {
          const { deviceIds, response } = await dpSim.admit({
            pod: `${resource}-${i}`,
            container: 'c',
            resource,
            count: 1,
          });
          reference.set(`${resource} ${deviceIds[0] ?? ''}`, {
            devices: response.devices,
            mounts: response.mounts,
            env: Object.entries(response.envs).map(([k, v]) => `${k}=${v}`),
          });
        }
      }
    } finally {
      await dp.stop();
      await dpSim.close();
    }

    api = await createApiServer({ nodes: [NODE] });
    node = createDraTestNode({
      plugin: usbPlugin,
      dir: base,
      // The device-plugin strategy `cdi` hands Allocate no nodes; through DRA the nodes come all the same.
      flags: [...common, '--device-list-strategy', 'cdi'],
      mode: { onEvent: (e) => events.emit('event', e) },
    });
    cdiDir = node.cdiDir;
    sim = await createKubeletSim({
      dir: node.kubeletDir,
      pluginsRegistryDir: node.pluginsRegistryDir,
      dra: { pluginsRegistryDir: node.pluginsRegistryDir, apiServer: { url: api.url }, nodeName: NODE },
    });
    const registered = sim.waitFor('dra-registered', (e) => e.driver === DRIVER, 30_000);
    const allPublished = new Promise<void>((resolve) =>
      events.on('event', (event: DraServeModeEvent) => {
        if (event.source === 'slices' && event.type === 'published') published.add(event.pool);
        if (RESOURCES.every((r) => published.has(`${NODE}/${r}`))) resolve();
      }),
    );
    node.start({ apiServer: api, nodeName: NODE });
    await registered;
    await allPublished;
  });

  afterAll(async () => {
    await node?.stop();
    await sim?.close();
    await api?.close();
    usb?.remove();
    rmSync(base, { recursive: true, force: true });
  });

  it('publishes one pool per resource, each device with its vendor, product and serial', () => {
    const ftdi = sliceOf('example.com/ftdi').devices;
    expect(ftdi.map((d) => d.attributes['serial']?.['string']).sort()).toEqual(['A50285BI', 'A7042Z1Q']);
    expect(ftdi[0]?.attributes).toMatchObject({
      resource: { string: 'example.com/ftdi' },
      vendor: { string: '0403' },
      product: { string: '6001' },
    });
    // Upper-case serials are no DNS labels: lower-cased, with a hash of the ID that keeps them distinct.
    expect(ftdi.map((d) => d.name).sort()).toEqual([
      expect.stringMatching(/^a50285bi-[0-9a-f]{8}$/),
      expect.stringMatching(/^a7042z1q-[0-9a-f]{8}$/),
    ]);
  });

  it('prepares each device with the device-plugin Allocate’s nodes, mounts and environment (names of the device’s own); unprepare removes the spec', async () => {
    let n = 0;
    for (const [key, answer] of reference) {
      n += 1;
      const [resource, id] = key.split(' ') as [string, string];
      const { pool, devices } = sliceOf(resource);
      const device = devices.find((d) => d.attributes['id']?.['string'] === id)?.name;
      const created = api.store.create(
        'resourceclaims',
        {
          metadata: { name: `c${n}` },
          spec: { devices: { requests: [{ name: 'usb', exactly: { deviceClassName: DRIVER } }] } },
        },
        'default',
      );
      api.store.update(
        'resourceclaims',
        {
          ...created,
          status: {
            allocation: { devices: { results: [{ request: 'usb', driver: DRIVER, pool, device }] } },
            reservedFor: [{ resource: 'pods', name: `p${n}`, uid: `u${n}` }],
          },
        },
        { namespace: 'default', subresource: 'status' },
      );
      const [prepared] = await sim.prepareClaims({ name: `p${n}`, uid: `u${n}` }, [`c${n}`]);
      const resolved = resolveCdiDevices(cdiDir, prepared?.devices.flatMap((d) => d.cdiDeviceIds) ?? []);
      expect(answer.devices.length).toBeGreaterThan(0);
      expect(byPath(resolved.devices)).toEqual(byPath(answer.devices));
      expect(byPath(resolved.mounts)).toEqual(byPath(answer.mounts));
      // Each variable under the device's own name, so that several devices in one container compose.
      const suffix = (device ?? '').toUpperCase().replace(/[^A-Z0-9]/g, '_');
      expect([...resolved.env].sort()).toEqual(
        answer.env.map((entry) => entry.replace('=', `_${suffix}=`)).sort(),
      );
      const unprepared = sim.waitFor('dra-unprepared', (e) => e.pod === `p${n}`, 30_000);
      await sim.deletePod(`p${n}`);
      await unprepared;
      expect(readdirSync(cdiDir).filter((f) => f.includes(`${prepared?.uid ?? '?'}`))).toEqual([]);
    }
    expect(n).toBeGreaterThanOrEqual(3);
  });
});
