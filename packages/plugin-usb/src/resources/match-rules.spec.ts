import { matchRules, ruleMismatch } from './match-rules';
import type { UsbDevice } from '../scan/usb-device';

const device = (over: { [K in keyof UsbDevice]?: UsbDevice[K] | undefined } = {}): UsbDevice =>
  ({
    portPath: '1-4.2',
    sysPath: 'bus/usb/devices/1-4.2',
    busnum: 1,
    devnum: 7,
    vendorId: '10c4',
    productId: 'ea60',
    serial: 'Z-0001',
    manufacturer: 'Silicon Labs',
    product: 'CP2102 USB to UART',
    deviceClass: '00',
    interfaceClasses: ['ff'],
    nodes: [],
    ...over,
  }) as UsbDevice;

describe('ruleMismatch', () => {
  it('matches every given field, case-insensitively for hex IDs and classes, with globs', () => {
    expect(
      ruleMismatch({ vendor: '10C4', product: 'ea*', class: 'FF', port: '1-4.*' }, device()),
    ).toBeUndefined();
    expect(
      ruleMismatch({ serial: 'Z-*', manufacturer: 'Silicon*', productName: '*UART' }, device()),
    ).toBeUndefined();
  });

  it('says which field failed', () => {
    expect(ruleMismatch({ vendor: '10c4', product: '0001' }, device())).toBe(
      'product "ea60" does not match "0001"',
    );
    expect(ruleMismatch({ serial: '*' }, device({ serial: undefined }))).toBe(
      'serial (none) does not match "*"',
    );
    expect(ruleMismatch({ serial: 'z-0001' }, device())).toBe('serial "Z-0001" does not match "z-0001"');
  });

  it('leaves hubs out unless the rule names class 09', () => {
    const hub = device({ deviceClass: '09', interfaceClasses: ['09'] });
    expect(ruleMismatch({ vendor: '10c4' }, hub)).toMatch(/is a hub/);
    expect(ruleMismatch({ vendor: '10c4', class: '09' }, hub)).toBeUndefined();
  });

  it('any rule of a list matches', () => {
    expect(matchRules([{ vendor: 'ffff' }, { product: 'ea60' }], device())).toBeUndefined();
    expect(matchRules([{ vendor: 'ffff' }, { product: 'ffff' }], device())).toBe(
      'vendor "10c4" does not match "ffff"',
    );
  });
});
