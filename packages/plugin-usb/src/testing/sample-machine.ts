import type { UsbDeviceSpec, UsbFixture } from './usb-fixture';

/** A fixture device without its place on the bus (`portPath`, `devnum`), to plug in anywhere. */
export type UsbDeviceModel = Omit<UsbDeviceSpec, 'portPath' | 'devnum'>;

const ftdi = { vendor: '0403', product: '6001', manufacturer: 'FTDI', productName: 'FT232R USB UART' };

/** The devices of {@link addSampleMachine}, for composing other fixture machines from them. */
export const SAMPLE_DEVICES = {
  /** FTDI FT232R, serial A50285BI, ttyUSB0. */
  ftdiA: { ...ftdi, serial: 'A50285BI', interfaces: [{ class: 'ff', driver: 'ftdi_sio', tty: 'ttyUSB0' }] },
  /** FTDI FT232R, serial A7042Z1Q, ttyUSB1. */
  ftdiB: { ...ftdi, serial: 'A7042Z1Q', interfaces: [{ class: 'ff', driver: 'ftdi_sio', tty: 'ttyUSB1' }] },
  /** CH340 serial adapter without a serial number, ttyUSB2. */
  ch340: {
    vendor: '1a86',
    product: '7523',
    productName: 'USB2.0-Serial',
    interfaces: [{ class: 'ff', driver: 'ch341', tty: 'ttyUSB2' }],
  },
  /** A 4-port USB 2.1 hub. */
  hub: {
    vendor: '05e3',
    product: '0610',
    deviceClass: '09',
    productName: 'USB2.1 Hub',
    speed: '480',
    interfaces: [{ class: '09', driver: 'hub' }],
  },
  /** Logitech keyboard: hidraw0 and event3. */
  keyboard: {
    vendor: '046d',
    product: 'c31c',
    manufacturer: 'Logitech',
    productName: 'USB Keyboard',
    speed: '1.5',
    interfaces: [{ class: '03', driver: 'usbhid', hidraw: 'hidraw0', events: ['event3'] }],
  },
  /** Logitech C270 webcam, serial 9C8E2F10: video0 and event4, two video interfaces and audio. */
  webcam: {
    vendor: '046d',
    product: '0825',
    serial: '9C8E2F10',
    manufacturer: 'Logitech',
    productName: 'Webcam C270',
    speed: '480',
    interfaces: [
      { class: '0e', driver: 'uvcvideo', video: 'video0', events: ['event4'] },
      { class: '0e', driver: 'uvcvideo' },
      { class: '01', driver: 'snd-usb-audio' },
    ],
  },
  /** Silicon Labs CDC-ACM Zigbee stick, serial 0001, ttyACM0. */
  zigbee: {
    vendor: '10c4',
    product: 'ea60',
    serial: '0001',
    manufacturer: 'Silicon Labs',
    productName: 'Zigbee Stick',
    interfaces: [
      { class: '02', driver: 'cdc_acm', tty: 'ttyACM0' },
      { class: '0a', driver: 'cdc_acm' },
    ],
  },
} as const satisfies Record<string, UsbDeviceModel>;

/**
 * A machine with the cases the tests need: two FTDI adapters of the same vendor/product told apart by serial
 * (with their ttyUSB nodes), a CH340 adapter without serial, a 4-port hub with a keyboard (hidraw + input) and a
 * webcam (video + input) behind it, and a CDC-ACM Zigbee stick on a second bus.
 */
export function addSampleMachine(usb: UsbFixture): void {
  usb.addRootHub(1);
  usb.addRootHub(2);
  const d = SAMPLE_DEVICES;
  usb.addDevice({ ...d.ftdiA, portPath: '1-1', devnum: 2 });
  usb.addDevice({ ...d.ftdiB, portPath: '1-2', devnum: 3 });
  usb.addDevice({ ...d.ch340, portPath: '1-3', devnum: 4 });
  usb.addDevice({ ...d.hub, portPath: '1-4', devnum: 5 });
  usb.addDevice({ ...d.keyboard, portPath: '1-4.1', devnum: 6 });
  usb.addDevice({ ...d.webcam, portPath: '1-4.2', devnum: 7 });
  usb.addDevice({ ...d.zigbee, portPath: '2-1', devnum: 2 });
}

/**
 * A configuration for the sample machine: both FTDI adapters, every vendor-specific (class ff) device, the webcam
 * shared twice, the keyboard's hidraw and input nodes, and the Zigbee stick by port and serial.
 */
export const SAMPLE_CONFIG = `resources:
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
