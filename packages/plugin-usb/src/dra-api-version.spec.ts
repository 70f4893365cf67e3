import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DraServeModeEvent } from '@kdp/dra';
import { createDraTestNode, type DraTestNode } from '@kdp/dra/testing';
import { createApiServer, createKubeletSim, type ApiServer, type KubeletSim } from '@kdp/kubelet-sim';
import { usbPlugin } from './plugin';
import { addSampleMachine, SAMPLE_CONFIG } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

jest.setTimeout(60_000);

const NODE = 'node-v';
const DRIVER = 'usb.kdp.dev';
const POOL = `${NODE}/example.com/ftdi`;

// Kubernetes 1.32 serves resource.k8s.io/v1beta1 only, 1.33 v1beta2 (and v1beta1): the driver picks the version
// by discovery, publishes its slices in that version's shape (the API server refuses another) and reads claims
// through it; the kubelet side reads through the same version.
describe.each(['v1beta1', 'v1beta2'] as const)(
  'usb-device-plugin --mode dra against an API server serving only resource.k8s.io/%s',
  (version) => {
    let usb: UsbFixture;
    let base: string;
    let api: ApiServer;
    let sim: KubeletSim;
    let node: DraTestNode | undefined;
    const events = new EventEmitter();

    beforeAll(async () => {
      usb = createUsbFixture();
      addSampleMachine(usb);
      base = mkdtempSync(join(tmpdir(), 'kdp-uver-'));
      const config = join(base, 'usb.yaml');
      writeFileSync(config, SAMPLE_CONFIG);
      api = await createApiServer({ nodes: [NODE], resourceApiVersions: [version] });
      node = createDraTestNode({
        plugin: usbPlugin,
        dir: base,
        flags: [
          '--sysfs-root',
          usb.sys.root,
          '--dev-root',
          usb.sys.devRoot,
          '--config',
          config,
          '--poll-interval',
          '1h',
        ],
        mode: { onEvent: (e) => events.emit('event', e) },
      });
      sim = await createKubeletSim({
        dir: node.kubeletDir,
        pluginsRegistryDir: node.pluginsRegistryDir,
        dra: {
          pluginsRegistryDir: node.pluginsRegistryDir,
          apiServer: { url: api.url, resourceApiVersion: version },
          nodeName: NODE,
        },
      });
      const registered = sim.waitFor('dra-registered', (e) => e.driver === DRIVER, 30_000);
      const published = new Promise<void>((resolve) =>
        events.on('event', (event: DraServeModeEvent) => {
          if (event.source === 'slices' && event.type === 'published' && event.pool === POOL) resolve();
        }),
      );
      node.start({ apiServer: api, nodeName: NODE });
      await registered;
      await published;
    });

    afterAll(async () => {
      await node?.stop();
      await sim?.close();
      await api?.close();
      usb?.remove();
      rmSync(base, { recursive: true, force: true });
    });

    it('publishes its pools in that version, logs the choice, and prepares a claim read through it', async () => {
      expect(
        api.requests.some((r) => r.startsWith(`POST /apis/resource.k8s.io/${version}/resourceslices`)),
      ).toBe(true);
      expect(api.requests.some((r) => r.includes('/apis/resource.k8s.io/v1/'))).toBe(false);
      expect(node?.stderr()).toContain(`resource.k8s.io/${version}`);
      const slice = api.store
        .list('resourceslices')
        .items.map(
          (s) =>
            (s as unknown as { spec: { pool: { name: string }; devices: Array<{ name: string }> } }).spec,
        )
        .find((spec) => spec.pool.name === POOL);
      const device = slice?.devices[0]?.name;
      expect(device).toBeDefined();
      const created = api.store.create(
        'resourceclaims',
        {
          metadata: { name: 'old-api' },
          spec: { devices: { requests: [{ name: 'usb', exactly: { deviceClassName: DRIVER } }] } },
        },
        'default',
      );
      api.store.update(
        'resourceclaims',
        {
          ...created,
          status: {
            allocation: { devices: { results: [{ request: 'usb', driver: DRIVER, pool: POOL, device }] } },
            reservedFor: [{ resource: 'pods', name: 'p', uid: 'u' }],
          },
        },
        { namespace: 'default', subresource: 'status' },
      );
      const [prepared] = await sim.prepareClaims({ name: 'p', uid: 'u' }, ['old-api']);
      expect(prepared?.devices.map((d) => [d.poolName, d.deviceName, d.requestNames])).toEqual([
        [POOL, device, ['usb']],
      ]);
      expect(
        api.requests.some((r) =>
          r.startsWith(`GET /apis/resource.k8s.io/${version}/namespaces/default/resourceclaims/old-api`),
        ),
      ).toBe(true);
    });
  },
);
