import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createTempDir, type TempDir } from '../testing/temp-dir';
import { createSysfsFixture } from '../testing/sysfs-fixture';
import type { SysfsFixture } from '../testing/sysfs-fixture';
import { createSysfs } from './create-sysfs';

describe('createSysfs', () => {
  let fixture: SysfsFixture;
  let outsideDir: TempDir;
  let outside: string;

  beforeEach(() => {
    fixture = createSysfsFixture();
    outsideDir = createTempDir('kdp-out-');
    outside = outsideDir.path;
    writeFileSync(join(outside, 'secret'), 'do not read\n');
    fixture.addPciDevice({ address: '0000:00:01.0', class: '0x060400', numaNode: 0 });
    fixture.addPciDevice({
      address: '0000:01:00.0',
      parent: '0000:00:01.0',
      vendor: '0x10de',
      class: '0x030200',
      driver: 'nvidia',
      numaNode: 0,
      localCpulist: '0-3,8',
      attributes: { local_cpus: '00000000,0000010f', empty: '', junk: 'not a number' },
    });
  });

  afterEach(() => {
    fixture.remove();
    outsideDir.remove();
  });

  it('reads trimmed attributes through the bus links, as int, hex, cpulist and cpumask', async () => {
    const sysfs = createSysfs({ root: fixture.root });
    const dev = 'bus/pci/devices/0000:01:00.0';
    expect(await sysfs.read(`${dev}/vendor`)).toBe('0x10de');
    expect(await sysfs.read(`/${dev}/vendor`)).toBe('0x10de');
    expect(await sysfs.readHex(`${dev}/class`)).toBe(0x030200);
    expect(await sysfs.readInt(`${dev}/numa_node`)).toBe(0);
    expect(await sysfs.readCpuList(`${dev}/local_cpulist`)).toEqual([0, 1, 2, 3, 8]);
    expect(await sysfs.readCpuMask(`${dev}/local_cpus`)).toEqual([0, 1, 2, 3, 8]);
    expect(await sysfs.read(`${dev}/empty`)).toBe('');
    expect(await sysfs.readInt(`${dev}/empty`)).toBeUndefined();
    expect(await sysfs.readInt(`${dev}/junk`)).toBeUndefined();
    expect(await sysfs.read(`${dev}/nothing`)).toBeUndefined();
    expect(await sysfs.read(dev)).toBeUndefined();
  });

  it('reads and resolves links relative to the root, and lists directories sorted', async () => {
    const sysfs = createSysfs({ root: fixture.root });
    expect(await sysfs.readLink('bus/pci/devices/0000:01:00.0')).toBe(
      '../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0',
    );
    expect(await sysfs.readLinkName('bus/pci/devices/0000:01:00.0/driver')).toBe('nvidia');
    expect(await sysfs.resolve('bus/pci/devices/0000:01:00.0')).toBe(
      'devices/pci0000:00/0000:00:01.0/0000:01:00.0',
    );
    expect(await sysfs.list('bus/pci/devices')).toEqual(['0000:00:01.0', '0000:01:00.0']);
    expect(await sysfs.list('bus/nowhere')).toEqual([]);
    expect(await sysfs.exists('bus/pci/drivers/nvidia/0000:01:00.0')).toBe(true);
    expect(await sysfs.exists('bus/pci/drivers/i40e')).toBe(false);
    expect(await sysfs.readLink('bus/pci/devices/0000:01:00.0/vendor')).toBeUndefined();
  });

  it('refuses links and paths that lead outside the root instead of following them', async () => {
    fixture.link('class/net/evil', outside);
    fixture.link('class/net/abs', join(outside, 'secret'));
    const sysfs = createSysfs({ root: fixture.root });
    expect(await sysfs.read('class/net/evil/secret')).toBeUndefined();
    expect(await sysfs.read('class/net/abs')).toBeUndefined();
    expect(await sysfs.read(`../${outside.split('/').pop()}/secret`)).toBeUndefined();
    expect(await sysfs.list('class/net/evil')).toEqual([]);
    expect(await sysfs.readLink('class/net/abs')).toBeUndefined();
    expect(await sysfs.resolve('class/net/evil')).toBeUndefined();
    const where = await sysfs.locate('class/net/evil/secret');
    expect(where).toMatchObject({ ok: false, reason: 'outside-root' });
  });

  it('says why a path cannot be used: missing, dangling link, link loop', async () => {
    fixture.link('class/net/dangling', '../../devices/gone');
    fixture.link('class/net/loop-a', 'loop-b');
    fixture.link('class/net/loop-b', 'loop-a');
    const sysfs = createSysfs({ root: fixture.root });
    expect(await sysfs.locate('class/net/none')).toMatchObject({ ok: false, reason: 'missing' });
    expect(await sysfs.locate('class/net/dangling')).toMatchObject({ ok: false, reason: 'dangling-link' });
    expect(await sysfs.locate('class/net/loop-a/x')).toMatchObject({ ok: false, reason: 'link-loop' });
    expect(await sysfs.read('class/net/loop-a')).toBeUndefined();
    expect(await sysfs.exists('class/net/loop-a')).toBe(false);
  });

  it('does not block on a FIFO and caps how much of a file it reads', async () => {
    fixture.mkdir('class/odd');
    execFileSync('mkfifo', [join(fixture.root, 'class/odd/fifo')]);
    writeFileSync(join(fixture.root, 'class/odd/big'), 'x'.repeat(100_000));
    const sysfs = createSysfs({ root: fixture.root, maxReadBytes: 1000 });
    expect(await sysfs.read('class/odd/fifo')).toBe('');
    expect(await sysfs.read('class/odd/big')).toHaveLength(1000);
  });

  it('reads nothing when the root does not exist', async () => {
    const sysfs = createSysfs({ root: join(outside, 'no-such-root') });
    expect(await sysfs.read('bus/pci/devices')).toBeUndefined();
    expect(await sysfs.list('')).toEqual([]);
    expect(await sysfs.locate('x')).toMatchObject({ ok: false, reason: 'missing' });
  });

  it('treats a root that is itself a symlink as that directory', async () => {
    const alias = join(outside, 'alias');
    mkdirSync(outside, { recursive: true });
    symlinkSync(fixture.root, alias);
    const sysfs = createSysfs({ root: alias });
    expect(await sysfs.read('bus/pci/devices/0000:01:00.0/vendor')).toBe('0x10de');
  });
});
