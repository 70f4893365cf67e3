import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost } from '@kdp/topology';
import { createFpgaFixture, IF_ID, NLB0, NLB3, U200, type FpgaFixture } from '../testing/create-fpga-fixture';
import { fpgaChangeProbe } from './fpga-change-probe';
import { scanFpgas } from './scan-fpgas';

describe('fpgaChangeProbe', () => {
  let fx: FpgaFixture;
  let dfl: { portDir: string; fmeDir?: string };
  let vf: { portDir: string };
  let opae: { portDir: string; fmeDir?: string };
  let alveo: { userDir: string };
  beforeEach(() => {
    fx = createFpgaFixture();
    dfl = fx.addDflCard({ address: '0000:81:00.0', index: 0, numaNode: 1, interfaceId: IF_ID, afuId: NLB0 });
    vf = fx.addDflCard({
      address: '0000:81:00.1',
      index: 1,
      numaNode: 1,
      afuId: NLB0,
      physfn: '0000:81:00.0',
    });
    opae = fx.addOpaeCard({ address: '0000:5e:00.0', index: 2, interfaceId: IF_ID, afuId: NLB3 });
    alveo = fx.addAlveoCard(U200);
    // An Intel accelerator without a DFL/OPAE container: excluded until its driver binds.
    fx.addPciDevice({ address: '0000:90:00.0', vendor: '0x8086', device: '0x0b30', class: '0x120000' });
  });
  afterEach(() => fx.remove());

  const probe = async () =>
    fpgaChangeProbe(await scanFpgas(createHost({ sysfsRoot: fx.root, devRoot: fx.devRoot })));
  /** What the runtime compares: every listing and every file of the probe, in order (missing reads as such). */
  const reading = (p: Awaited<ReturnType<typeof probe>>): string =>
    [
      ...(p.sysfs?.list ?? []).map((path) => attempt(() => readdirSync(join(fx.root, path)).join('/'))),
      ...(p.sysfs?.read ?? []).map((path) => attempt(() => readFileSync(join(fx.root, path), 'utf8'))),
    ].join('\0');
  const attempt = (read: () => string): string => {
    try {
      return read();
    } catch (err) {
      return `!${(err as NodeJS.ErrnoException).code ?? ''}`;
    }
  };

  it('names only sysfs paths that exist: the class and PCI lists, each port and card, each excluded candidate', async () => {
    const p = await probe();
    expect(p.devfs).toBeUndefined();
    expect(p.procfs).toBeUndefined();
    for (const path of [...(p.sysfs?.list ?? []), ...(p.sysfs?.read ?? [])]) {
      expect([path, attempt(() => readFileSync(join(fx.root, path), 'utf8')).startsWith('!ENOENT')]).toEqual([
        path,
        false,
      ]);
    }
    expect(p.sysfs?.list).toEqual(
      expect.arrayContaining(['class/fpga_region', 'class/fpga', 'bus/pci/devices', alveo.userDir]),
    );
    expect(p.sysfs?.list).toContain('bus/pci/devices/0000:90:00.0');
    expect(p.sysfs?.read).toEqual(
      expect.arrayContaining([
        `${dfl.portDir}/errors/errors`,
        `${dfl.portDir}/afu_id`,
        `${vf.portDir}/errors/errors`,
        `${opae.portDir}/errors/errors`,
        `${opae.fmeDir as string}/pr/interface_id`,
        `${dfl.fmeDir as string}/dfl-fme-region.0/fpga_region/region100/compat_id`,
      ]),
    );
    // Cheap: a handful of paths per card, never a walk of the PCI tree.
    expect((p.sysfs?.list?.length ?? 0) + (p.sysfs?.read?.length ?? 0)).toBeLessThan(25);
  });

  const changes: [string, (fx: FpgaFixture) => void][] = [
    ['a port error register set', () => writeFileSync(join(fx.root, dfl.portDir, 'errors/errors'), '0x1\n')],
    [
      'a VF port error register set',
      () => writeFileSync(join(fx.root, vf.portDir, 'errors/errors'), '0x4\n'),
    ],
    ['a port reprogrammed (afu_id)', () => writeFileSync(join(fx.root, opae.portDir, 'afu_id'), `${NLB0}\n`)],
    [
      'a full reconfiguration (interface ID)',
      () =>
        writeFileSync(
          join(fx.root, dfl.fmeDir as string, 'dfl-fme-region.0/fpga_region/region100/compat_id'),
          'ffffffffffffffffffffffffffffffff\n',
        ),
    ],
    ['a port leaving its region', () => rmSync(join(fx.root, dfl.portDir), { recursive: true })],
    [
      'an Alveo shell gone (xbutil reset)',
      () => rmSync(join(fx.root, alveo.userDir, 'rom.0'), { recursive: true }),
    ],
    [
      'an Alveo render node gone from drm',
      () => rmSync(join(fx.root, alveo.userDir, 'drm/renderD128'), { recursive: true }),
    ],
    [
      'a new DFL card',
      (f) => f.addDflCard({ address: '0000:af:00.0', index: 5, interfaceId: IF_ID, afuId: NLB0 }),
    ],
    ['the excluded accelerator getting a region', () => fx.mkdir(`${fx.pciDir('0000:90:00.0')}/fpga_region`)],
  ];

  it.each(changes)('changes its reading on %s', async (_, change) => {
    const p = await probe();
    const before = reading(p);
    change(fx);
    expect(reading(p)).not.toBe(before);
  });

  it('keeps its reading when nothing it names changes (FME attributes, other PCI attributes)', async () => {
    const p = await probe();
    const before = reading(p);
    writeFileSync(join(fx.root, dfl.fmeDir as string, 'bitstream_id'), '0x999\n');
    writeFileSync(join(fx.root, fx.pciDir('0000:81:00.0'), 'numa_node'), '0\n');
    expect(reading(p)).toBe(before);
  });
});
