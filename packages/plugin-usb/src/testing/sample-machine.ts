import type { UsbFixture } from './usb-fixture';

/**
 * A machine with the cases the tests need: two FTDI adapters of the same vendor/product told apart by serial
 * (with their ttyUSB nodes), a CH340 adapter without serial, a 4-port hub with a keyboard (hidraw + input) and a
 * webcam (video + input) behind it, and a CDC-ACM Zigbee stick on a second bus.
 */
export function addSampleMachine(usb: UsbFixture): void {
  usb.addRootHub(1);
  usb.addRootHub(2);
  const ftdi = { vendor: '0403', product: '6001', manufacturer: 'FTDI', productName: 'FT232R USB UART' };
  usb.addDevice({
    ...ftdi,
    portPath: '1-1',
    devnum: 2,
    serial: 'A50285BI',
    interfaces: [{ class: 'ff', driver: 'ftdi_sio', tty: 'ttyUSB0' }],
  });
  usb.addDevice({
    ...ftdi,
    portPath: '1-2',
    devnum: 3,
    serial: 'A7042Z1Q',
    interfaces: [{ class: 'ff', driver: 'ftdi_sio', tty: 'ttyUSB1' }],
  });
  usb.addDevice({
    portPath: '1-3',
    vendor: '1a86',
    product: '7523',
    devnum: 4,
    productName: 'USB2.0-Serial',
    interfaces: [{ class: 'ff', driver: 'ch341', tty: 'ttyUSB2' }],
  });
  usb.addDevice({
    portPath: '1-4',
    vendor: '05e3',
    product: '0610',
    devnum: 5,
    deviceClass: '09',
    productName: 'USB2.1 Hub',
    speed: '480',
    interfaces: [{ class: '09', driver: 'hub' }],
  });
  usb.addDevice({
    portPath: '1-4.1',
    vendor: '046d',
    product: 'c31c',
    devnum: 6,
    manufacturer: 'Logitech',
    productName: 'USB Keyboard',
    speed: '1.5',
    interfaces: [{ class: '03', driver: 'usbhid', hidraw: 'hidraw0', events: ['event3'] }],
  });
  usb.addDevice({
    portPath: '1-4.2',
    vendor: '046d',
    product: '0825',
    devnum: 7,
    serial: '9C8E2F10',
    manufacturer: 'Logitech',
    productName: 'Webcam C270',
    speed: '480',
    interfaces: [
      { class: '0e', driver: 'uvcvideo', video: 'video0', events: ['event4'] },
      { class: '0e', driver: 'uvcvideo' },
      { class: '01', driver: 'snd-usb-audio' },
    ],
  });
  usb.addDevice({
    portPath: '2-1',
    vendor: '10c4',
    product: 'ea60',
    devnum: 2,
    serial: '0001',
    manufacturer: 'Silicon Labs',
    productName: 'Zigbee Stick',
    interfaces: [
      { class: '02', driver: 'cdc_acm', tty: 'ttyACM0' },
      { class: '0a', driver: 'cdc_acm' },
    ],
  });
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
