import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, systemClock } from '@kdp/core';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand } from '@kdp/core/testing';
import { createHost } from '@kdp/topology';
import { usbConfigSchema } from './config';
import { createUsbPlugin, usbPlugin } from './plugin';
import { loadUsbLibrary } from './scan/usb-library';
import { defined } from './testing/defined';
import { addSampleMachine, SAMPLE_CONFIG } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

/** A DeviceSpec as this plugin hands it out: the host path as the container path, `rw`. */
const node = (path: string) => ({ containerPath: path, hostPath: path, permissions: 'rw' });

type R = DiscoverDocument['resources'][number];

describe('usb-device-plugin discover --output json (in-process)', () => {
  let usb: UsbFixture;
  let config: string;
  const discover = async (extra: string[] = []): Promise<DiscoverDocument> => {
    const run = await runPluginCommand(usbPlugin, [
      'discover',
      ...['--output', 'json', '--sysfs-root', usb.sys.root, '--dev-root', usb.sys.devRoot],
      ...['--log-level', 'error', ...extra],
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout) as DiscoverDocument;
  };
  beforeEach(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    config = join(usb.sys.base, 'usb.yaml');
    writeFileSync(config, SAMPLE_CONFIG);
  });
  afterEach(() => usb.remove());

  it('tells devices of the same vendor/product apart by serial, each with its ttyUSB node', async () => {
    const doc = await discover(['--config', config]);
    const ftdi = defined(doc.resources[0]);
    expect(ftdi.resourceName).toBe('example.com/ftdi');
    expect(ftdi.devices).toEqual([
      {
        id: 'A50285BI',
        health: 'Healthy',
        // The NUMA node of the xHCI controller the device hangs below; the device itself is no PCI function.
        numaNodes: [0],
        pciAddress: null,
        deviceSpecs: [node('/dev/bus/usb/001/002'), node('/dev/ttyUSB0')],
        mounts: [],
        // What a container holding this device alone receives (discover now prints Allocate's answer).
        envs: {
          KDP_USB_FTDI_IDS: 'A50285BI',
          KDP_USB_FTDI_PORTS: '1-1',
          KDP_USB_FTDI_SERIALS: 'A50285BI',
          KDP_USB_FTDI_BUS: '/dev/bus/usb/001/002',
          KDP_USB_FTDI_TTY: '/dev/ttyUSB0',
        },
        attributes: {
          vendor: '0403',
          product: '6001',
          port: '1-1',
          busnum: '1',
          devnum: '2',
          class: '00',
          interfaceClasses: 'ff',
          serial: 'A50285BI',
          manufacturer: 'FTDI',
          productName: 'FT232R USB UART',
          bcdDevice: '0100',
          controller: '0000:00:14.0',
          hubs: 'usb1',
        },
      },
      expect.objectContaining({
        id: 'A7042Z1Q',
        deviceSpecs: [node('/dev/bus/usb/001/003'), node('/dev/ttyUSB1')],
      }),
    ]);
  });

  it('identifies a device without serial by its port path', async () => {
    const doc = await discover(['--config', config]);
    const serial = defined(doc.resources[1]);
    expect(serial.resourceName).toBe('example.com/serial');
    expect(serial.devices.map((d) => d.id)).toEqual(['port-1-3']);
    expect(defined(serial.devices[0]).attributes).not.toHaveProperty('serial');
    expect(defined(serial.devices[0]).deviceSpecs.map((s) => s.hostPath)).toEqual([
      '/dev/bus/usb/001/004',
      '/dev/ttyUSB2',
    ]);
  });

  it('finds devices behind a hub, shares them with count, and hands out video, hidraw and input nodes', async () => {
    const doc = await discover(['--config', config]);
    const [, , camera, keyboard, zigbee] = doc.resources as [unknown, unknown, R, R, R];
    expect(camera.devices.map((d) => d.id)).toEqual(['9C8E2F10#0', '9C8E2F10#1']);
    expect(defined(camera.devices[0]).deviceSpecs.map((s) => s.hostPath)).toEqual([
      '/dev/bus/usb/001/007',
      '/dev/video0',
      '/dev/input/event4',
    ]);
    expect(defined(camera.devices[0]).attributes).toMatchObject({ port: '1-4.2', interfaceClasses: '01,0e' });
    expect(keyboard.devices).toHaveLength(1);
    expect(defined(keyboard.devices[0]).id).toBe('port-1-4.1');
    // nodes: [hidraw, input] leaves the /dev/bus/usb node out.
    expect(defined(keyboard.devices[0]).deviceSpecs.map((s) => s.hostPath)).toEqual([
      '/dev/hidraw0',
      '/dev/input/event3',
    ]);
    expect(zigbee.devices.map((d) => d.id)).toEqual(['0001']);
    expect(defined(zigbee.devices[0]).deviceSpecs.map((s) => s.hostPath)).toEqual([
      '/dev/bus/usb/002/002',
      '/dev/ttyACM0',
    ]);
    expect(defined(zigbee.devices[0]).envs).toMatchObject({ KDP_USB_ZIGBEE_TTY: '/dev/ttyACM0' });
  });

  it('explains root hubs and the hub in excluded, never lists interfaces, and warns about double matches', async () => {
    const doc = await discover(['--config', config]);
    expect(doc.excluded).toEqual([
      { path: '/sys/bus/usb/devices/usb1', reason: 'root hub' },
      { path: '/sys/bus/usb/devices/usb2', reason: 'root hub' },
      {
        path: '/sys/bus/usb/devices/1-4',
        reason:
          '05e3:0610: example.com/ftdi: vendor "05e3" does not match "0403"; ' +
          'example.com/serial: classes [09] do not match "ff"; example.com/camera: classes [09] do not match "0e"; ' +
          'example.com/keyboard: vendor "05e3" does not match "046d"; example.com/zigbee: serial (none) does not match "0001"',
      },
    ]);
    expect(doc.warnings).toEqual([
      '1-1 matches example.com/serial too but is already advertised as example.com/ftdi',
      '1-2 matches example.com/serial too but is already advertised as example.com/ftdi',
    ]);
  });

  it('path globs: one device per match of a /dev glob, found through the /dev root', async () => {
    writeFileSync(config, 'resources:\n  - name: example.com/tty\n    paths: ["/dev/ttyUSB*"]\n');
    const doc = await discover(['--config', config]);
    const tty = defined(doc.resources[0]);
    expect(tty.devices.map((d) => [d.id, d.deviceSpecs.map((s) => s.hostPath), d.envs])).toEqual(
      [0, 1, 2].map((n) => [
        `ttyUSB${n}`,
        [`/dev/ttyUSB${n}`],
        { KDP_USB_TTY_IDS: `ttyUSB${n}`, KDP_USB_TTY_PATHS: `/dev/ttyUSB${n}` },
      ]),
    );
  });

  it('without --config advertises nothing and lists every device as excluded', async () => {
    const doc = await discover();
    expect(doc.resources).toEqual([]);
    expect(doc.excluded).toHaveLength(9);
    expect(doc.excluded[2]).toEqual({
      path: '/sys/bus/usb/devices/1-1',
      reason: 'no resource is configured for USB devices (0403:6001 serial A50285BI)',
    });
  });

  it('takes exactly the flags that act: no --proc-root (procfs is never read), no serve flags on discover', async () => {
    const run = (...args: string[]) => runPluginCommand(usbPlugin, args);
    const help = await run('--help');
    expect(help.stdout).toContain('--device-list-strategy');
    expect(help.stdout).toContain('--plugins-registry-dir');
    expect(help.stdout).not.toContain('--proc-root');
    for (const flags of [
      ['discover', '--proc-root', usb.sys.procRoot],
      ['serve', '--proc-root', usb.sys.procRoot, '--device-plugin-dir', usb.sys.base],
      ['discover', '--cdi-dir', usb.sys.base],
      ['discover', '--device-plugin-dir', usb.sys.base],
      ['discover', '--device-list-strategy', 'cdi'],
    ]) {
      const result = await run(...flags);
      expect([flags.join(' '), result.code]).toEqual([flags.join(' '), 2]);
    }
  });

  it('probes every 500 ms between scans and watches only /dev (sysfs never raises inotify)', () => {
    expect(usbPlugin.reads?.procfs).toBeUndefined();
    expect(usbPlugin.scan.interval).toBe('500ms');
    const ctx = { state: { busDirs: ['/dev/bus/usb/001'] } } as unknown as Parameters<
      NonNullable<typeof usbPlugin.scan.watch>
    >[0];
    expect(usbPlugin.scan.watch?.(ctx)).toEqual({
      devfs: ['/dev', '/dev/bus/usb', '/dev/bus/usb/001', '/dev/input'],
    });
    expect(usbPlugin.scan.probe).toBeDefined();
  });

  it('a host without USB is zero devices and one warning, exit 0', async () => {
    const empty = createUsbFixture();
    try {
      const run = await runPluginCommand(usbPlugin, [
        'discover',
        ...['--output', 'json', '--sysfs-root', empty.sys.root, '--dev-root', empty.sys.devRoot],
        ...['--config', config],
      ]);
      expect(run.code).toBe(0);
      const doc = JSON.parse(run.stdout) as DiscoverDocument;
      expect(doc.resources.every((r) => r.devices.length === 0)).toBe(true);
      expect(doc.warnings).toEqual([`no USB bus under ${empty.sys.root}/bus/usb/devices: zero USB devices`]);
    } finally {
      empty.remove();
    }
  });
});

describe("usb-device-plugin's setup and the usb package", () => {
  let usb: UsbFixture;
  beforeEach(() => (usb = createUsbFixture()));
  afterEach(() => usb.remove());

  /** Runs the plugin's setup as the runtime does, with a fake usb package; returns the state and the counters. */
  const setUp = async (
    command: 'serve' | 'discover',
    sysfsRoot: string,
    setting: 'auto' | 'off' = 'auto',
  ) => {
    const emitter = new EventEmitter();
    let loads = 0;
    let rescans = 0;
    const plugin = createUsbPlugin({
      loadLibrary: () => {
        loads += 1;
        return loadUsbLibrary(() => ({ getDeviceList: () => [], usb: emitter }));
      },
    });
    const ctx = {
      name: 'usb',
      command,
      host: createHost({ sysfsRoot, devRoot: usb.sys.devRoot }),
      config: usbConfigSchema.parse({ usbLibrary: setting }),
      flags: {},
      cdiDir: usb.sys.base,
      deviceListStrategy: undefined,
      logger: createLogger({ level: 'error', destination: { write: () => undefined } }),
      clock: systemClock,
      signal: new AbortController().signal,
      rescan: () => void (rescans += 1),
    };
    const state = await defined(plugin.setup)(ctx);
    const stop = (): unknown => plugin.hooks?.stop?.({ ...ctx, state });
    return { emitter, state, stop, loads: () => loads, rescans: () => rescans };
  };

  it("serve on the host's /sys: every attach and detach asks for a scan, until the stop hook unsubscribes", async () => {
    const run = await setUp('serve', '/sys');
    expect(run.loads()).toBe(1);
    expect(run.state.enrich).toBeDefined();
    run.emitter.emit('attach', {});
    run.emitter.emit('detach', {});
    expect(run.rescans()).toBe(2);
    await run.stop();
    run.emitter.emit('attach', {});
    expect(run.rescans()).toBe(2);
    expect(run.emitter.listenerCount('attach')).toBe(0);
  });

  it('discover uses the package for descriptor strings only: no hot-plug subscription', async () => {
    const run = await setUp('discover', '/sys');
    expect(run.loads()).toBe(1);
    expect(run.state.enrich).toBeDefined();
    expect(run.emitter.listenerCount('attach')).toBe(0);
  });

  it('never loads the package for a fixture sysfs root or with usbLibrary: off', async () => {
    const fixture = await setUp('serve', usb.sys.root);
    const off = await setUp('serve', '/sys', 'off');
    expect([fixture.loads(), off.loads()]).toEqual([0, 0]);
    expect([fixture.state.enrich, off.state.stopHotplug]).toEqual([undefined, undefined]);
  });
});
