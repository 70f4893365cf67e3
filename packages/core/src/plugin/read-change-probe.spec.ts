import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost } from '@kdp/topology';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import type { ChangeProbe } from './define-plugin';
import { readChangeProbe } from './read-change-probe';

let fixture: SysfsFixture;
beforeEach(() => {
  fixture = createSysfsFixture();
  fixture.write('class/net/eth0/carrier', '1\n');
  fixture.write('bus/pci/drivers/iavf/bind', '');
  fixture.link('bus/pci/devices/0000:3b:02.0/driver', '../../../bus/pci/drivers/iavf');
  fixture.mkdir('bus/pci/devices/0000:3b:02.1');
  fixture.addDevNode('/dev/vfio/12', 241, 0);
  fixture.writeProc('net/route', 'Iface\\n');
});
afterEach(() => fixture.remove());

const probe: ChangeProbe = {
  sysfs: {
    list: ['bus/pci/devices'],
    read: ['class/net/eth0/carrier'],
    links: ['bus/pci/devices/0000:3b:02.0/driver'],
  },
  devfs: { list: ['/dev/vfio'] },
  procfs: { read: ['net/route'] },
};
const read = (): string =>
  readChangeProbe(
    createHost({ sysfsRoot: fixture.root, devRoot: fixture.devRoot, procRoot: fixture.procRoot }),
    probe,
  );

describe('readChangeProbe', () => {
  it('is stable while nothing changes', () => {
    expect(read()).toBe(read());
  });

  it.each<[string, () => void]>([
    ['an attribute', () => fixture.write('class/net/eth0/carrier', '0\n')],
    ['a directory entry', () => fixture.mkdir('bus/pci/devices/0000:3b:02.2')],
    [
      'a link target',
      () => {
        rmSync(join(fixture.root, 'bus/pci/devices/0000:3b:02.0/driver'));
        symlinkSync(
          '../../../bus/pci/drivers/vfio-pci',
          join(fixture.root, 'bus/pci/devices/0000:3b:02.0/driver'),
        );
      },
    ],
    ['a device node', () => fixture.addDevNode('/dev/vfio/13', 241, 1)],
    ['a procfs file', () => writeFileSync(join(fixture.procRoot, 'net/route'), 'Iface\\neth0\\n')],
    ['a file that vanishes', () => rmSync(join(fixture.root, 'class/net/eth0/carrier'))],
  ])('changes when %s changes', (_what, change) => {
    const before = read();
    change();
    expect(read()).not.toBe(before);
  });

  it('reads the same probe again as a fresh one: a path that was missing is seen when it appears and when it goes', () => {
    const host = createHost({
      sysfsRoot: fixture.root,
      devRoot: fixture.devRoot,
      procRoot: fixture.procRoot,
    });
    const same: ChangeProbe = {
      sysfs: { read: ['class/net/eth1/carrier'], list: ['class/net/eth1'], links: ['class/net/eth1/device'] },
    };
    const fresh = (): string => readChangeProbe(host, { sysfs: { ...same.sysfs } });
    const missing = readChangeProbe(host, same);
    expect(missing).toBe('\u0001ENOENT\u0000\u0001ENOENT\u0000\u0001ENOENT');
    expect(readChangeProbe(host, same)).toBe(missing);
    fixture.write('class/net/eth1/carrier', '1\n');
    fixture.link('class/net/eth1/device', '../../../bus/pci/devices/0000:3b:02.1');
    expect(readChangeProbe(host, same)).toBe(fresh());
    expect(readChangeProbe(host, same)).toBe(
      'carrier/device\u00001\n\u0000../../../bus/pci/devices/0000:3b:02.1',
    );
    rmSync(join(fixture.root, 'class/net/eth1'), { recursive: true });
    expect(readChangeProbe(host, same)).toBe(missing);
    // Prepared per host: the same probe read through another host reads that host.
    const devices: ChangeProbe = { devfs: { list: ['/dev/vfio'] } };
    const other = createHost({ sysfsRoot: fixture.root, devRoot: fixture.root, procRoot: fixture.procRoot });
    expect(readChangeProbe(host, devices)).toBe('12');
    expect(readChangeProbe(other, devices)).toBe('\u0001ENOENT');
    expect(readChangeProbe(host, devices)).toBe('12');
  });

  it('never throws, and never leaves its roots', () => {
    const host = createHost({
      sysfsRoot: fixture.root,
      devRoot: fixture.devRoot,
      procRoot: fixture.procRoot,
    });
    expect(() =>
      readChangeProbe(host, {
        sysfs: { read: ['../../../../etc/hostname', 'missing'] },
        devfs: { list: ['/etc'] },
      }),
    ).not.toThrow();
    expect(readChangeProbe(host, { devfs: { list: ['/etc'] } })).toBe('\u0001outside');
  });
});
