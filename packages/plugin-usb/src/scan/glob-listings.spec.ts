import { createDevfs } from '@kdp/topology';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { globListings } from './glob-listings';

describe('globListings', () => {
  let sys: SysfsFixture;
  beforeEach(() => {
    sys = createSysfsFixture();
    sys.addDevNode('/dev/ttyUSB0', 188, 0);
    sys.addDevNode('/dev/snd/controlC0', 116, 0);
    sys.addDevNode('/dev/snd/pcmC0D0p', 116, 16);
    sys.addDevNode('/dev/dri/card0', 226, 0);
  });
  afterEach(() => sys.remove());
  const listings = (pattern: string) => globListings(createDevfs(sys.devRoot), pattern);

  it('a glob in the last segment lists its directory; fixed names that exist are not listed', async () => {
    expect(await listings('/dev/ttyUSB*')).toEqual(['/dev']);
    expect(await listings('/dev/snd/*')).toEqual(['/dev/snd']);
    expect(await listings('/dev/ttyUSB0')).toEqual(['/dev']);
  });

  it('a fixed directory that does not exist yet: its parent, where it will appear', async () => {
    expect(await listings('/dev/serial/by-id/*')).toEqual(['/dev']);
    sys.addDevLink('/dev/serial/by-id/usb-FTDI', '../../ttyUSB0');
    expect(await listings('/dev/serial/by-id/*')).toEqual(['/dev/serial/by-id']);
  });

  it('a glob in a middle segment lists its directory and every entry it matches (a file lists as nothing)', async () => {
    expect(await listings('/dev/*/card*')).toEqual(['/dev', '/dev/dri', '/dev/snd', '/dev/ttyUSB0']);
  });

  it('nothing outside /dev', async () => {
    expect(await listings('/etc/*')).toEqual([]);
  });
});
