import type { SysfsFixture } from '@kdp/topology/testing';
import { writeDevNode } from './dev-node';

/** One interface of a sample USB device and the node its driver created. */
interface UsbInterface {
  readonly class: string;
  readonly driver: string;
  /** `ttyUSB0` (usb-serial layout) or `ttyACM0` (cdc-acm layout, under `tty/`). */
  readonly tty?: string;
  readonly hidraw?: string;
  readonly event?: string;
  readonly video?: string;
}

/** One sample USB device. */
interface UsbDevice {
  readonly port: string;
  readonly vendor: string;
  readonly product: string;
  readonly devnum: number;
  readonly serial?: string;
  readonly manufacturer?: string;
  readonly productName: string;
  readonly deviceClass?: string;
  readonly speed: string;
  readonly interfaces: readonly UsbInterface[];
}

/** The xHCI controller the two root hubs (usb1: USB 2, usb2: USB 3) hang off. */
const XHCI = '0000:00:14.0';

/** Two FTDI serial adapters, a hub with a keyboard and a webcam behind it, and a Zigbee stick. */
export const USB_DEVICES: readonly UsbDevice[] = [
  {
    port: '1-1',
    vendor: '0403',
    product: '6001',
    devnum: 2,
    serial: 'A50285BI',
    manufacturer: 'FTDI',
    productName: 'FT232R USB UART',
    speed: '12',
    interfaces: [{ class: 'ff', driver: 'ftdi_sio', tty: 'ttyUSB0' }],
  },
  {
    port: '1-2',
    vendor: '0403',
    product: '6001',
    devnum: 3,
    serial: 'A7042Z1Q',
    manufacturer: 'FTDI',
    productName: 'FT232R USB UART',
    speed: '12',
    interfaces: [{ class: 'ff', driver: 'ftdi_sio', tty: 'ttyUSB1' }],
  },
  {
    port: '1-3',
    vendor: '05e3',
    product: '0610',
    devnum: 4,
    productName: 'USB2.1 Hub',
    deviceClass: '09',
    speed: '480',
    interfaces: [{ class: '09', driver: 'hub' }],
  },
  {
    port: '1-3.1',
    vendor: '046d',
    product: 'c31c',
    devnum: 5,
    manufacturer: 'Logitech',
    productName: 'USB Keyboard',
    speed: '1.5',
    interfaces: [{ class: '03', driver: 'usbhid', hidraw: 'hidraw0', event: 'event3' }],
  },
  {
    port: '1-3.2',
    vendor: '046d',
    product: '0825',
    devnum: 6,
    serial: '9C8E2F10',
    manufacturer: 'Logitech',
    productName: 'Webcam C270',
    speed: '480',
    interfaces: [
      { class: '0e', driver: 'uvcvideo', video: 'video0', event: 'event4' },
      { class: '0e', driver: 'uvcvideo' },
      { class: '01', driver: 'snd-usb-audio' },
    ],
  },
  {
    port: '1-4',
    vendor: '10c4',
    product: 'ea60',
    devnum: 7,
    serial: '0001',
    manufacturer: 'Silicon Labs',
    productName: 'Zigbee Stick',
    speed: '12',
    interfaces: [
      { class: '02', driver: 'cdc_acm', tty: 'ttyACM0' },
      { class: '0a', driver: 'cdc_acm' },
    ],
  },
];

const busNode = (bus: number, devnum: number): string =>
  `/dev/bus/usb/${String(bus).padStart(3, '0')}/${String(devnum).padStart(3, '0')}`;
/** `uevent` writes IDs without leading zeros (`PRODUCT=403/6001/100`). */
const trimHex = (hex: string): string => hex.replace(/^0+(?=.)/, '');

/**
 * The USB tree as the kernel lays it out: an xHCI PCI function with root hubs, devices under
 * `bus/usb/devices/<bus>-<port>` with `uevent` and descriptor files, interfaces with their tty, hidraw, input
 * and video children, and the /dev/bus/usb, tty, hidraw, input and video nodes.
 */
export function addUsbDevices(fixture: SysfsFixture): void {
  const xhci = fixture.addPciDevice({
    address: XHCI,
    vendor: '0x8086',
    device: '0xa36d',
    class: '0x0c0330',
    driver: 'xhci_hcd',
    numaNode: 0,
  });
  const dirs = new Map<string, string>();
  const attrs = (dir: string, values: Record<string, string | undefined>): void => {
    for (const [name, value] of Object.entries(values)) {
      if (value !== undefined) fixture.write(`${dir}/${name}`, `${value}\n`);
    }
  };
  for (const [bus, speed] of [
    [1, '480'],
    [2, '5000'],
  ] as const) {
    const dir = `${xhci}/usb${bus}`;
    attrs(dir, {
      idVendor: '1d6b',
      idProduct: bus === 1 ? '0002' : '0003',
      bDeviceClass: '09',
      busnum: String(bus),
      devnum: '1',
      devpath: '0',
      speed,
      product: 'xHCI Host Controller',
    });
    attrs(`${dir}/${bus}-0:1.0`, { bInterfaceClass: '09', bInterfaceNumber: '00' });
    fixture.linkTo(`bus/usb/devices/usb${bus}`, dir);
    fixture.linkTo(`bus/usb/devices/${bus}-0:1.0`, `${dir}/${bus}-0:1.0`);
    dirs.set(`usb${bus}`, dir);
    writeDevNode(fixture.devRoot, busNode(bus, 1), 189, (bus - 1) * 128);
  }
  for (const device of USB_DEVICES) addUsbDevice(fixture, dirs, device, attrs);
}

function addUsbDevice(
  fixture: SysfsFixture,
  dirs: Map<string, string>,
  spec: UsbDevice,
  attrs: (dir: string, values: Record<string, string | undefined>) => void,
): void {
  const bus = Number(spec.port.split('-')[0]);
  const dot = spec.port.lastIndexOf('.');
  const parent = dirs.get(dot > 0 ? spec.port.slice(0, dot) : `usb${bus}`) as string;
  const dir = `${parent}/${spec.port}`;
  const minor = (bus - 1) * 128 + spec.devnum - 1;
  const deviceClass = spec.deviceClass ?? '00';
  attrs(dir, {
    idVendor: spec.vendor,
    idProduct: spec.product,
    bcdDevice: '0100',
    bDeviceClass: deviceClass,
    busnum: String(bus),
    devnum: String(spec.devnum),
    devpath: spec.port.slice(spec.port.indexOf('-') + 1),
    speed: spec.speed,
    serial: spec.serial,
    manufacturer: spec.manufacturer,
    product: spec.productName,
    dev: `189:${minor}`,
    uevent: [
      'MAJOR=189',
      `MINOR=${minor}`,
      `DEVNAME=${busNode(bus, spec.devnum).slice('/dev/'.length)}`,
      'DEVTYPE=usb_device',
      'DRIVER=usb',
      `PRODUCT=${trimHex(spec.vendor)}/${trimHex(spec.product)}/100`,
      `TYPE=${parseInt(deviceClass, 16)}/0/0`,
      `BUSNUM=${String(bus).padStart(3, '0')}`,
      `DEVNUM=${String(spec.devnum).padStart(3, '0')}`,
    ].join('\n'),
  });
  fixture.linkTo(`bus/usb/devices/${spec.port}`, dir);
  dirs.set(spec.port, dir);
  writeDevNode(fixture.devRoot, busNode(bus, spec.devnum), 189, minor);
  spec.interfaces.forEach((iface, index) => {
    const name = `${spec.port}:1.${index}`;
    const idir = `${dir}/${name}`;
    attrs(idir, { bInterfaceClass: iface.class, bInterfaceNumber: String(index).padStart(2, '0') });
    fixture.linkTo(`${idir}/driver`, `bus/usb/drivers/${iface.driver}`);
    fixture.linkTo(`bus/usb/devices/${name}`, idir);
    if (iface.tty?.startsWith('ttyUSB')) {
      attrs(`${idir}/${iface.tty}/tty/${iface.tty}`, { dev: `188:${iface.tty.slice(6)}` });
      writeDevNode(fixture.devRoot, `/dev/${iface.tty}`, 188, Number(iface.tty.slice(6)));
    } else if (iface.tty !== undefined) {
      attrs(`${idir}/tty/${iface.tty}`, { dev: `166:${iface.tty.slice(6)}` });
      writeDevNode(fixture.devRoot, `/dev/${iface.tty}`, 166, Number(iface.tty.slice(6)));
    }
    if (iface.video !== undefined) {
      attrs(`${idir}/video4linux/${iface.video}`, { dev: `81:${iface.video.slice(5)}` });
      writeDevNode(fixture.devRoot, `/dev/${iface.video}`, 81, Number(iface.video.slice(5)));
    }
    const hid = `${idir}/0003:${spec.vendor.toUpperCase()}:${spec.product.toUpperCase()}.${String(index + 1).padStart(4, '0')}`;
    if (iface.hidraw !== undefined) {
      attrs(`${hid}/hidraw/${iface.hidraw}`, { dev: `240:${iface.hidraw.slice(6)}` });
      writeDevNode(fixture.devRoot, `/dev/${iface.hidraw}`, 240, Number(iface.hidraw.slice(6)));
    }
    if (iface.event !== undefined) {
      const base = iface.hidraw !== undefined ? `${hid}/input` : `${idir}/input`;
      const eventMinor = 64 + Number(iface.event.slice(5));
      attrs(`${base}/input${index + 10}/${iface.event}`, { dev: `13:${eventMinor}` });
      writeDevNode(fixture.devRoot, `/dev/input/${iface.event}`, 13, eventMinor);
    }
  });
}
