import { EventEmitter } from 'node:events';
import { createDescriptorEnricher, loadUsbLibrary, type UsbLibrary } from './usb-library';
import type { UsbDevice } from './usb-device';

const device = (over: Partial<UsbDevice>): UsbDevice => ({
  portPath: '1-1',
  sysPath: 'bus/usb/devices/1-1',
  busnum: 1,
  devnum: 2,
  vendorId: '0403',
  productId: '6001',
  deviceClass: '00',
  interfaceClasses: [],
  nodes: [],
  hubs: ['usb1'],
  ...over,
});

describe('the usb package behind UsbLibrary', () => {
  it('loads the real package from its own prebuilt binary (no install script ran) and sees this host', () => {
    const loaded = loadUsbLibrary();
    // This machine has no USB controller: the library loads and simply finds nothing.
    expect(loaded).toEqual({ ok: true, library: expect.any(Object) });
    const real = require('usb') as { getDeviceList(): unknown[] };
    expect(Array.isArray(real.getDeviceList())).toBe(true);
  });

  it('reports a failing load as a reason, never a throw', () => {
    expect(
      loadUsbLibrary(() => {
        throw new Error('libudev.so.1: cannot open shared object file');
      }),
    ).toEqual({ ok: false, reason: 'libudev.so.1: cannot open shared object file' });
    expect(loadUsbLibrary(() => ({}))).toEqual({
      ok: false,
      reason: 'the usb package does not have the expected API',
    });
  });

  it('turns attach and detach into rescans and stops listening on unsubscribe', () => {
    const emitter = new EventEmitter();
    const loaded = loadUsbLibrary(() => ({ getDeviceList: () => [], usb: emitter }));
    if (!loaded.ok) throw new Error(loaded.reason);
    let fired = 0;
    const off = loaded.library.onHotplug(() => (fired += 1));
    emitter.emit('attach', {});
    emitter.emit('detach', {});
    off();
    emitter.emit('attach', {});
    expect(fired).toBe(2);
  });

  it('reads descriptor strings by opening the device at bus/devnum, and closes it', async () => {
    const calls: string[] = [];
    const fake = {
      busNumber: 1,
      deviceAddress: 2,
      deviceDescriptor: { iManufacturer: 1, iProduct: 2 },
      open: () => calls.push('open'),
      close: () => calls.push('close'),
      getStringDescriptor: (index: number, cb: (e?: unknown, v?: string) => void) =>
        cb(undefined, index === 1 ? 'FTDI' : 'FT232R'),
    };
    const loaded = loadUsbLibrary(() => ({ getDeviceList: () => [fake], usb: new EventEmitter() }));
    if (!loaded.ok) throw new Error(loaded.reason);
    expect(await loaded.library.readStrings(1, 2)).toEqual({ manufacturer: 'FTDI', product: 'FT232R' });
    expect(await loaded.library.readStrings(1, 3)).toBeUndefined();
    expect(calls).toEqual(['open', 'close']);
  });

  it('fills only the strings sysfs lacks, once per plug, never the serial, the same object for the same device', async () => {
    let reads = 0;
    const library: UsbLibrary = {
      onHotplug: () => () => undefined,
      readStrings: async () => {
        reads += 1;
        return { manufacturer: 'From USB', product: 'From USB' };
      },
    };
    const enrich = createDescriptorEnricher(library);
    const list = [
      device({ product: 'From sysfs' }),
      device({ portPath: '1-2', devnum: 3, manufacturer: 'M', product: 'P' }),
    ];
    const out = await enrich(list);
    expect(out[0]).toMatchObject({ manufacturer: 'From USB', product: 'From sysfs' });
    expect(out[0]?.serial).toBeUndefined();
    expect(out[1]).toBe(list[1]);
    // The same (unchanged) device object gets the same enriched object: later planning is remembered per object.
    expect((await enrich(list))[0]).toBe(out[0]);
    expect(reads).toBe(1);
  });
});
