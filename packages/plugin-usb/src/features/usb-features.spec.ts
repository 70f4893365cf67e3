import { usbFeatures } from './usb-features';

describe('usbFeatures', () => {
  it('labels each resource that has devices: present and count', () => {
    const device = (id: string) => ({ id, health: 'Healthy' as const });
    expect(
      usbFeatures({
        resources: [
          { name: 'example.com/yubikey', devices: [device('1-1'), device('1-2')] },
          { name: 'example.com/dongle', devices: [] },
        ],
      }),
    ).toEqual({ 'example.com/yubikey.present': 'true', 'example.com/yubikey.count': '2' });
  });
});
