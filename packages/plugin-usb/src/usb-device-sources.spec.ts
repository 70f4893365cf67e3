import { EventEmitter } from 'node:events';
import { silentLogger, type PluginDevice } from '@kdp/core';
import { createSysfs } from '@kdp/topology';
import type { DevicePayload } from './device-payload';
import { toResourceSpecs } from './resource-spec';
import { usbConfigSchema } from './usb-config';
import { createUsbDeviceSources } from './usb-device-sources';
import { loadUsbLibrary } from './usb-library';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

const specs = toResourceSpecs(
  usbConfigSchema.parse({ resources: [{ name: 'example.com/stick', match: [{ vendor: '10c4' }] }] }),
);
const stick = (devnum: number) => ({
  portPath: '1-1',
  vendor: '10c4',
  product: 'ea60',
  devnum,
  serial: 'S1',
  devNodes: false,
});

describe('createUsbDeviceSources', () => {
  let usb: UsbFixture;
  let stop: (() => void) | undefined;
  beforeEach(() => {
    usb = createUsbFixture();
    usb.addRootHub(1);
  });
  afterEach(() => {
    stop?.();
    usb.remove();
  });

  /** Subscribes and resolves with the first list that satisfies `predicate` (30 s upper bound). */
  const watch = (sources: ReturnType<typeof createUsbDeviceSources>) => {
    const lists: Array<readonly PluginDevice<DevicePayload>[]> = [];
    const waiters: Array<() => void> = [];
    stop = sources.sourceOf('example.com/stick').subscribe((list) => {
      lists.push(list);
      for (const w of waiters.splice(0)) w();
    });
    return async (predicate: (list: readonly PluginDevice<DevicePayload>[]) => boolean) => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const hit = lists.find(predicate);
        if (hit) return hit;
        if (Date.now() > deadline) throw new Error('no matching list within 30 s');
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 1000).unref();
        });
      }
    };
  };

  it("rescans on the usb package's attach and detach events (no inotify, a 60 s poll)", async () => {
    const emitter = new EventEmitter();
    const loaded = loadUsbLibrary(() => ({ getDeviceList: () => [], usb: emitter }));
    if (!loaded.ok) throw new Error(loaded.reason);
    const library = loaded.library;
    const sources = createUsbDeviceSources({
      sysfs: createSysfs({ root: usb.sys.root }),
      devRoot: usb.sys.devRoot,
      specs,
      intervalMs: 60_000,
      triggers: [(fire) => library.onHotplug(fire)],
      logger: silentLogger,
    });
    const until = watch(sources);
    await until((list) => list.length === 0);
    usb.addDevice(stick(5));
    emitter.emit('attach', {});
    const plugged = await until((list) => list.length === 1);
    expect(plugged[0]).toMatchObject({ id: 'S1', health: 'Healthy' });
    sources.memoryOf('example.com/stick').allocated(plugged);
    usb.removeDevice('1-1');
    emitter.emit('detach', {});
    expect((await until((list) => list[0]?.health === 'Unhealthy'))[0]?.id).toBe('S1');
  });

  it('falls back to the poll when no event arrives', async () => {
    const sources = createUsbDeviceSources({
      sysfs: createSysfs({ root: usb.sys.root }),
      devRoot: usb.sys.devRoot,
      specs,
      intervalMs: 100,
      triggers: [],
      logger: silentLogger,
    });
    const until = watch(sources);
    await until((list) => list.length === 0);
    usb.addDevice(stick(7));
    const plugged = await until((list) => list.length === 1);
    expect(plugged[0]?.payload).toMatchObject({ kind: 'usb', device: { devnum: 7 } });
    expect(sources.latest()?.scan.devices).toHaveLength(1);
  });
});
