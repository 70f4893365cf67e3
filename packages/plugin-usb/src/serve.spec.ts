import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPluginRun, type PluginRun } from '@kdp/core/testing';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { usbPlugin } from './plugin';
import { defined } from './testing/defined';
import { addSampleMachine } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

/** A DeviceSpec as this plugin hands it out: the host path as the container path, `rw`. */
const node = (path: string) => ({ containerPath: path, hostPath: path, permissions: 'rw' });

const FTDI = 'example.com/ftdi';
const CAMERA = 'example.com/camera';

const CONFIG = `
resources:
  - name: ${FTDI}
    match: [{ vendor: "0403", product: "6001" }]
  - name: ${CAMERA}
    match: [{ class: 0e }]
    count: 2
`;

describe('usb-device-plugin serve against the simulated kubelet', () => {
  let usb: UsbFixture;
  let dir: string;
  let sim: KubeletSim;
  let run: PluginRun;

  const listed = (resource: string, predicate: (healthy: string[], unhealthy: string[]) => boolean) =>
    sim.waitFor('devices', (e) => e.resource === resource && predicate(e.healthy, e.unhealthy), 20_000);

  /** Resolves at once when the kubelet's current list already satisfies the predicate, else on the next list that does. */
  const until = async (resource: string, predicate: (healthy: string[], unhealthy: string[]) => boolean) => {
    // Checked and subscribed in the same tick, so no list can slip in between (and no waiter is left pending).
    const now = sim.resource(resource);
    if (now !== undefined && predicate(now.healthy, now.unhealthy)) return;
    await listed(resource, predicate);
  };

  /** `serve` on the fixture; `--poll-interval 60s` unless given, so changes reach the kubelet through events alone. */
  const serve = async (pollInterval = '60s') => {
    const registered = sim.waitFor('registered', (e) => e.resource === CAMERA, 20_000);
    run = startPluginRun(usbPlugin, [
      'serve',
      ...['--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot, '--device-plugin-dir', dir],
      ...['--config', join(usb.sys.base, 'usb.yaml'), '--log-level', 'warn', '--poll-interval', pollInterval],
    ]);
    await registered;
    await until(FTDI, (healthy) => healthy.length === 2);
    await until(CAMERA, (healthy) => healthy.length === 2);
  };

  beforeEach(async () => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    dir = mkdtempSync(join(tmpdir(), 'kdp-usb-'));
    writeFileSync(join(usb.sys.base, 'usb.yaml'), CONFIG);
    sim = await createKubeletSim({ dir });
  });

  afterEach(async () => {
    expect(await run.stop()).toBe(0);
    await sim.close();
    usb.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a plugged device reaches the kubelet in under 1 s (event-driven, the poll is 60 s)', async () => {
    await serve();
    const seen = listed(FTDI, (healthy) => healthy.includes('FT9XYZ01'));
    const start = performance.now();
    usb.addDevice({
      portPath: '1-4.3',
      vendor: '0403',
      product: '6001',
      devnum: 9,
      serial: 'FT9XYZ01',
      interfaces: [{ class: 'ff', tty: 'ttyUSB3' }],
    });
    await seen;
    const ms = performance.now() - start;
    process.stdout.write(`plug -> kubelet-sim: ${ms.toFixed(1)} ms\n`);
    // The target is well under 1 s; this shared machine only gets a generous ceiling.
    expect(ms).toBeLessThan(5000);
  });

  it('replug with a new devnum keeps the ID (unhealthy while gone) and the next Allocate gets the new node', async () => {
    await serve();
    const first = await sim.admit({ pod: 'p1', container: 'c', resource: FTDI, count: 1 });
    const id = defined(first.deviceIds[0]);
    const port = id === 'A50285BI' ? '1-1' : '1-2';
    expect(first.response.devices.map((d) => d.hostPath)).toContain(
      port === '1-1' ? '/dev/bus/usb/001/002' : '/dev/bus/usb/001/003',
    );
    sim.release('p1');

    const unhealthy = listed(FTDI, (_, bad) => bad.includes(id));
    usb.removeDevice(port);
    await unhealthy;

    const back = listed(FTDI, (healthy) => healthy.includes(id) && healthy.length === 2);
    usb.addDevice({
      portPath: port,
      vendor: '0403',
      product: '6001',
      devnum: 42,
      serial: id,
      interfaces: [{ class: 'ff', tty: port === '1-1' ? 'ttyUSB0' : 'ttyUSB1' }],
    });
    await back;
    const devices = [...defined(sim.resource(FTDI)).healthy].sort();
    expect(devices).toEqual(['A50285BI', 'A7042Z1Q']);

    // Take both so that the replugged one is certainly among them.
    const second = await sim.admit({ pod: 'p2', container: 'c', resource: FTDI, count: 2 });
    expect(second.response.devices.map((d) => d.hostPath)).toContain('/dev/bus/usb/001/042');
    expect(second.response.envs[`KDP_USB_FTDI_BUS`]).toContain('/dev/bus/usb/001/042');
  });

  it('an unplugged device that was never allocated simply leaves the list', async () => {
    await serve();
    const gone = listed(FTDI, (healthy, unhealthy) => healthy.length === 1 && unhealthy.length === 0);
    usb.removeDevice('1-2');
    const event = await gone;
    expect(event.healthy).toEqual(['A50285BI']);
  });

  it('applies a changed configuration on SIGHUP: a new resource registers with its devices', async () => {
    await serve();
    const zigbee = 'example.com/zigbee';
    const registered = sim.waitFor('registered', (e) => e.resource === zigbee, 20_000);
    writeFileSync(
      join(usb.sys.base, 'usb.yaml'),
      `${CONFIG}  - name: ${zigbee}\n    match: [{ vendor: 10c4, serial: "0001" }]\n`,
    );
    run.signal('SIGHUP');
    await registered;
    await until(zigbee, (healthy) => healthy.includes('0001'));
    const admission = await sim.admit({ pod: 'z', container: 'c', resource: zigbee, count: 1 });
    expect(admission.response.envs['KDP_USB_ZIGBEE_TTY']).toBe('/dev/ttyACM0');
  });

  it('shares a device between containers with count and returns its video and input nodes to each', async () => {
    await serve();
    const a = await sim.admit({ pod: 'a', container: 'c', resource: CAMERA, count: 1 });
    const b = await sim.admit({ pod: 'b', container: 'c', resource: CAMERA, count: 1 });
    expect(new Set([...a.deviceIds, ...b.deviceIds])).toEqual(new Set(['9C8E2F10#0', '9C8E2F10#1']));
    for (const admission of [a, b]) {
      expect(admission.response.devices).toEqual([
        node('/dev/bus/usb/001/007'),
        node('/dev/video0'),
        node('/dev/input/event4'),
      ]);
      expect(admission.response.envs).toEqual({
        KDP_USB_CAMERA_IDS: '9C8E2F10',
        KDP_USB_CAMERA_PORTS: '1-4.2',
        KDP_USB_CAMERA_SERIALS: '9C8E2F10',
        KDP_USB_CAMERA_BUS: '/dev/bus/usb/001/007',
        KDP_USB_CAMERA_VIDEO: '/dev/video0',
        KDP_USB_CAMERA_INPUT: '/dev/input/event4',
      });
    }
  });

  it('the change probe finds what no watched directory reports (a link in /dev/serial/by-id)', async () => {
    const byId = 'example.com/by-id';
    writeFileSync(
      join(usb.sys.base, 'usb.yaml'),
      `${CONFIG}  - name: ${byId}\n    paths: ["/dev/serial/by-id/*"]\n`,
    );
    usb.sys.mkdir('../dev/serial/by-id');
    await serve('200ms');
    const found = listed(byId, (healthy) => healthy.includes('serial_by-id_usb-FTDI-A50285BI'));
    // Only /dev/serial/by-id changes, and nothing watches it.
    usb.sys.addDevLink('/dev/serial/by-id/usb-FTDI-A50285BI', '../../ttyUSB0');
    await found;
  });
});
