import { execFileSync } from 'node:child_process';
import type { ExecFileSyncOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from './testing/temp-dir';
import { createSysfs } from './sysfs/create-sysfs';
import { readNumaTopology } from './numa/read-numa-topology';
import { enumeratePciDevices } from './pci/enumerate-pci-devices';
import { pciDeviceLocality } from './pci/pci-locality';
import { choosePreferredAllocation } from './allocation/choose-preferred-allocation';

// Runs the readers over this machine's real /sys: whatever it holds, nothing may throw.
describe('the real /sys of this machine', () => {
  const sysfs = createSysfs();

  it('has a /sys to read (Linux)', () => {
    expect(existsSync('/sys/bus/pci') || existsSync('/sys/devices/system/node')).toBe(true);
  });

  it('reads NUMA topology and enumerates every PCI function without throwing', async () => {
    const numa = await readNumaTopology(sysfs);
    const scan = await enumeratePciDevices(sysfs, { numa });
    const pciCount = (await sysfs.list('bus/pci/devices')).length;
    expect(scan.devices.length + scan.warnings.filter((w) => /skipped/.test(w)).length).toBe(pciCount);
    for (const device of scan.devices) {
      expect(device.address).toMatch(/^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/);
      if (device.vendor !== undefined) expect(device.vendor).toMatch(/^0x[0-9a-f]{4}$/);
    }
    const locality = new Map(scan.devices.map((d) => [d.address, pciDeviceLocality(d)]));
    const available = [...locality.keys()];
    const chosen = choosePreferredAllocation({ available, mustInclude: [], size: 2, locality });
    expect(chosen).toHaveLength(Math.min(2, available.length));
  });

  it('replays a capture of this machine to the same PCI scan', async () => {
    const workDir = createTempDir('kdp-real-');
    const work = workDir.path;
    try {
      const options: ExecFileSyncOptions = { timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] };
      execFileSync(
        'sh',
        [join(__dirname, '../capture/kdp-capture.sh'), '-o', join(work, 'c.tar.gz')],
        options,
      );
      execFileSync(
        'sh',
        [join(__dirname, '../capture/kdp-replay.sh'), join(work, 'c.tar.gz'), join(work, 'r')],
        options,
      );
      const live = await enumeratePciDevices(sysfs);
      const replay = await enumeratePciDevices(createSysfs({ root: join(work, 'r/sys') }));
      expect(replay.devices).toEqual(live.devices);
      expect(replay.numa).toEqual(live.numa);
    } finally {
      workDir.remove();
    }
  }, 180_000);
});
