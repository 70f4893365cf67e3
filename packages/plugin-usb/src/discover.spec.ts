import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core';
import { addSampleMachine } from './testing/sample-machine';
import { runCli } from './testing/run-cli';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';
import { defined } from './testing/defined';

type R = DiscoverDocument['resources'][number];

const CONFIG = `
resources:
  - name: example.com/ftdi
    match: [{ vendor: "0403", product: "6001" }]
  - name: example.com/serial
    match: [{ class: ff }]
  - name: example.com/camera
    match: [{ class: 0e }]
    count: 2
  - name: example.com/keyboard
    match: [{ vendor: 046d, productName: "*Keyboard" }]
    nodes: [hidraw, input]
  - name: example.com/zigbee
    match: [{ port: "2-*", serial: "0001" }]
`;

describe('usb-device-plugin discover --output json', () => {
  let usb: UsbFixture;
  let config: string;
  const discover = async (extra: string[] = []): Promise<DiscoverDocument> => {
    const run = await runCli([
      'discover',
      '--output',
      'json',
      '--sysfs-root',
      usb.sys.root,
      '--dev-root',
      usb.sys.devRoot,
      '--log-level',
      'error',
      ...extra,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return JSON.parse(run.stdout) as DiscoverDocument;
  };
  beforeEach(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    config = join(usb.sys.base, 'usb.yaml');
    writeFileSync(config, CONFIG);
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
        numaNodes: [],
        pciAddress: null,
        deviceSpecs: [
          { containerPath: '/dev/bus/usb/001/002', hostPath: '/dev/bus/usb/001/002', permissions: 'rw' },
          { containerPath: '/dev/ttyUSB0', hostPath: '/dev/ttyUSB0', permissions: 'rw' },
        ],
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
        },
      },
      expect.objectContaining({
        id: 'A7042Z1Q',
        deviceSpecs: [
          { containerPath: '/dev/bus/usb/001/003', hostPath: '/dev/bus/usb/001/003', permissions: 'rw' },
          { containerPath: '/dev/ttyUSB1', hostPath: '/dev/ttyUSB1', permissions: 'rw' },
        ],
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

  it('without --config advertises nothing and lists every device as excluded', async () => {
    const doc = await discover();
    expect(doc.resources).toEqual([]);
    expect(doc.excluded).toHaveLength(9);
    expect(doc.excluded[2]).toEqual({
      path: '/sys/bus/usb/devices/1-1',
      reason: 'no resource is configured for USB devices (0403:6001 serial A50285BI)',
    });
  });

  it('a host without USB is zero devices and one warning, exit 0', async () => {
    const empty = createUsbFixture();
    try {
      const run = await runCli([
        'discover',
        '--output',
        'json',
        '--sysfs-root',
        empty.sys.root,
        '--config',
        config,
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
