import type { UsbFixture } from './usb-fixture';

/** What {@link generateUsbTree} built. */
export interface GeneratedTree {
  readonly devices: number;
  readonly hubs: number;
  readonly interfaces: number;
}

/**
 * Adds `count` USB devices (hubs included) spread over buses of at most 120 devices, two buses per xHCI
 * controller (`0000:00:14.0`, then `0000:01:00.0`, …; NUMA nodes 0, 1, 0, …): per bus, 7-port hubs on the root
 * ports and leaf devices behind them, every third one a serial adapter with its ttyUSB node, every fifth a HID
 * device, some without serial.
 */
export function generateUsbTree(usb: UsbFixture, count: number): GeneratedTree {
  let devices = 0;
  let hubs = 0;
  let interfaces = 0;
  let tty = 0;
  let hidraw = 0;
  for (let bus = 1; devices < count; bus++) {
    const controller = Math.floor((bus - 1) / 2);
    usb.addRootHub(bus, {
      address: controller === 0 ? '0000:00:14.0' : `0000:${controller.toString(16).padStart(2, '0')}:00.0`,
      numaNode: controller % 2,
    });
    let devnum = 2;
    for (let root = 1; root <= 15 && devices < count && devnum < 120; root++) {
      const hub = `${bus}-${root}`;
      usb.addDevice({
        portPath: hub,
        vendor: '05e3',
        product: '0610',
        devnum: devnum++,
        deviceClass: '09',
        interfaces: [{ class: '09' }],
      });
      devices++;
      hubs++;
      interfaces++;
      for (let port = 1; port <= 7 && devices < count && devnum < 120; port++) {
        const n = devices;
        const serialAdapter = n % 3 === 0;
        const hid = n % 5 === 0;
        usb.addDevice({
          portPath: `${hub}.${port}`,
          vendor: serialAdapter ? '0403' : hid ? '046d' : '1234',
          product: serialAdapter ? '6001' : hid ? 'c31c' : String(n % 10000).padStart(4, '0'),
          devnum: devnum++,
          ...(n % 4 === 0 ? {} : { serial: `SN${String(n).padStart(6, '0')}` }),
          manufacturer: 'Bench',
          productName: `Device ${n}`,
          interfaces: serialAdapter
            ? [{ class: 'ff', tty: `ttyUSB${tty++}` }]
            : hid
              ? [{ class: '03', hidraw: `hidraw${hidraw++}`, events: [`event${n}`] }]
              : [{ class: 'ff' }, { class: '08' }],
        });
        devices++;
        interfaces += serialAdapter || hid ? 1 : 2;
      }
    }
  }
  return { devices, hubs, interfaces };
}
