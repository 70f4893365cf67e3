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
