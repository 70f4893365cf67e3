import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir, type TempDir } from './testing/temp-dir';
import { createSysfs } from './sysfs/create-sysfs';
import { enumeratePciDevices } from './pci/enumerate-pci-devices';
import { createSysfsFixture } from './testing/sysfs-fixture';
import type { SysfsFixture } from './testing/sysfs-fixture';
import { addTwoSocketMachine } from './testing/two-socket-machine';

const captureScript = join(__dirname, '../capture/kdp-capture.sh');
const replayScript = join(__dirname, '../capture/kdp-replay.sh');
const run = (args: string[]): string =>
  execFileSync('sh', args, { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });

describe('kdp-capture.sh and kdp-replay.sh', () => {
  let fixture: SysfsFixture;
  let workDir: TempDir;
  let work: string;
  let replayed: string;
  let flags: string;

  beforeAll(() => {
    fixture = createSysfsFixture();
    addTwoSocketMachine(fixture);
    fixture.writeProc(
      'driver/nvidia/gpus/0000:03:00.0/information',
      'Model: \t NVIDIA H100 80GB HBM3\nDevice Minor: \t 0\n',
    );
    fixture.writeProc('devices', 'Character devices:\n195 nvidia\n511 nvidia-uvm\n');
    workDir = createTempDir('kdp-cap-');
    work = workDir.path;
    mkdirSync(join(work, 'outside'));
    writeFileSync(join(work, 'outside/secret'), 'not for the capture\n');
    fixture.link('class/net/evil', join(work, 'outside'));
    fixture.write(`${fixture.pciDir('0000:03:00.0')}/config`, 'binary config space');
    run([
      captureScript,
      '-o',
      join(work, 'cap.tar.gz'),
      '--sysfs-root',
      fixture.root,
      '--proc-root',
      fixture.procRoot,
      '--dev-root',
      '/dev',
    ]);
    replayed = join(work, 'replayed');
    flags = run([replayScript, join(work, 'cap.tar.gz'), replayed]);
  }, 180_000);
  afterAll(() => {
    fixture.remove();
    workDir.remove();
  });

  it('prints the flags that point a plugin at the replayed machine', () => {
    expect(flags.trim()).toBe(
      `--sysfs-root ${replayed}/sys --proc-root ${replayed}/proc --dev-root ${replayed}/dev`,
    );
  });

  it('replays the PCI functions and NUMA layout exactly as the original tree reads', async () => {
    const original = await enumeratePciDevices(createSysfs({ root: fixture.root }));
    const replay = await enumeratePciDevices(createSysfs({ root: join(replayed, 'sys') }));
    expect(replay.devices).toHaveLength(20);
    expect(replay.devices).toEqual(original.devices);
    expect(replay.numa).toEqual(original.numa);
    expect(replay.warnings).toEqual([]);
    expect(readFileSync(join(replayed, 'sys/class/infiniband/mlx5_0/ports/1/state'), 'utf8')).toBe(
      '4: ACTIVE\n',
    );
  });

  it('copies procfs facts and turns /dev nodes into placeholders without opening them', () => {
    expect(readFileSync(join(replayed, 'proc/driver/nvidia/gpus/0000:03:00.0/information'), 'utf8')).toBe(
      'Model: \t NVIDIA H100 80GB HBM3\nDevice Minor: \t 0\n',
    );
    expect(readFileSync(join(replayed, 'dev/null'), 'utf8')).toBe('c 1:3\n');
    expect(readFileSync(join(replayed, 'dev.list'), 'utf8')).toMatch(/^c 0666 1:3 0:0 null$/m);
    expect(readFileSync(join(replayed, 'kdp-capture.txt'), 'utf8')).toMatch(/^pci-functions 20$/m);
  });

  it('records links as links, never copies what lies outside the root, skips binary files', () => {
    const listing = run(['-c', 'tar -tzf "$1"', 'sh', join(work, 'cap.tar.gz')]);
    expect(listing).toMatch(/sys\/class\/net\/evil/);
    expect(listing).not.toMatch(/secret/);
    expect(listing).not.toMatch(/0000:03:00\.0\/config/);
  });

  it('refuses dev.list paths that climb out of the replay directory', () => {
    const bad = join(work, 'bad');
    mkdirSync(join(bad, 'sys'), { recursive: true });
    writeFileSync(join(bad, 'kdp-capture.txt'), 'kdp-capture format 1\n');
    writeFileSync(
      join(bad, 'dev.list'),
      'c 0666 1:3 0:0 ../../escaped\nc 0666 1:5 0:0 /abs\nc 0666 1:3 0:0 ok\n',
    );
    run(['-c', 'tar -czf "$1" -C "$2" .', 'sh', join(work, 'bad.tar.gz'), bad]);
    const target = join(work, 'bad-replay', 'x');
    run([replayScript, join(work, 'bad.tar.gz'), target]);
    expect(existsSync(join(target, 'dev/ok'))).toBe(true);
    expect(existsSync(join(work, 'bad-replay', 'escaped'))).toBe(false);
    expect(existsSync(join(target, 'dev/abs'))).toBe(false);
  });
});
