import { closeSync, constants, openSync, readdirSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createSysfs } from '../sysfs/create-sysfs';
import { createEscapeSentinel, type EscapeSentinel } from './escape-sentinel';
import { fuzzDiscoverScan, type CommandOutcome, type FuzzMachine } from './fuzz-discover-scan';
import { createSysfsFixture, type SysfsFixture } from './sysfs-fixture';

/** How a toy scanner of PCI vendors behaves: right, or with one of the faults the fuzz must catch. */
type Scanner = 'confined' | 'follows-links' | 'silent-skip' | 'writes' | 'crashes';

/** Reads a file the naive way: following any link, non-blocking (so that the spec itself cannot hang). */
function readAnywhere(path: string): string | undefined {
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const buffer = Buffer.alloc(4096);
      return buffer.subarray(0, readSync(fd, buffer)).toString('utf8').trim();
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

const HEX = /^0x[0-9a-f]{4,6}$/;

/** A toy `discover`: one device per PCI function whose vendor, device and class read as hex. */
async function scan(machine: FuzzMachine, scanner: Scanner): Promise<CommandOutcome> {
  const sysfs = createSysfs({ root: machine.root });
  const naive = scanner === 'follows-links';
  const names = naive
    ? (() => {
        try {
          return readdirSync(join(machine.root, 'bus/pci/devices'));
        } catch {
          return [];
        }
      })()
    : await sysfs.list('bus/pci/devices');
  const devices: unknown[] = [];
  const excluded: unknown[] = [];
  for (const name of names) {
    const read = async (file: string): Promise<string | undefined> => {
      const path = `bus/pci/devices/${name}/${file}`;
      return naive ? readAnywhere(join(machine.root, path)) : sysfs.read(path);
    };
    const ids = [await read('vendor'), await read('device'), await read('class')];
    const device = { id: name, health: 'Healthy', numaNodes: [], deviceSpecs: [], mounts: [] };
    if (ids.every((id) => id !== undefined && HEX.test(id))) devices.push(device);
    else if (naive) devices.push({ ...device, attributes: { ids: ids.join(' ') } });
    else if (scanner === 'crashes')
      return { code: 1, stdout: '', stderr: `${new TypeError('bad vendor').stack}\n` };
    else if (scanner !== 'silent-skip')
      excluded.push({ path: `/sys/bus/pci/devices/${name}`, reason: 'vendor, device or class is not hex' });
  }
  if (scanner === 'writes') writeFileSync(join(machine.root, 'scan-cache'), String(devices.length));
  const doc = { resources: [{ resourceName: 'example.com/nic', devices }], excluded, warnings: [] };
  return { code: 0, stdout: JSON.stringify(doc), stderr: '' };
}

describe('fuzzDiscoverScan', () => {
  let sentinel: EscapeSentinel;
  let machine: SysfsFixture;
  beforeAll(() => {
    sentinel = createEscapeSentinel();
    // Two PCI functions and nothing else: few entries, so that every fault is hit within a few dozen runs.
    machine = createSysfsFixture();
    machine.addPciDevice({ address: '0000:3b:00.0', vendor: '0x8086', device: '0x1572', class: '0x020000' });
    machine.addPciDevice({ address: '0000:3b:00.1', vendor: '0x8086', device: '0x1572', class: '0x020000' });
  });
  afterAll(() => {
    sentinel.remove();
    machine.remove();
  });
  const fuzz = (scanner: Scanner, numRuns = 200) =>
    fuzzDiscoverScan(fc, {
      templates: [machine],
      roots: ['sys', 'dev'],
      sentinel,
      discover: (copy) => scan(copy, scanner),
      seed: 1800,
      numRuns,
    });

  it('passes a confined scanner that explains what it skips, and says what it exercised', async () => {
    const report = await fuzz('confined', 60);
    expect(report.runs).toBe(60);
    expect(report.runsWithDevices).toBeGreaterThan(0);
    expect(report.runsWithNewDiagnostics).toBeGreaterThan(0);
    expect(report.runsWithLostDevices).toBeGreaterThan(0);
    expect(report.applied['link:sentinel']).toBeGreaterThan(0);
    expect(sentinel.problems()).toEqual([]);
  });

  it('catches a scanner that follows links out of the root', async () => {
    await expect(fuzz('follows-links')).rejects.toThrow(
      /printed what lies outside the roots|read from the sentinel FIFO/,
    );
  });

  it('catches a scanner that drops a device with garbage in a file without a word', async () => {
    await expect(fuzz('silent-skip')).rejects.toThrow(
      /1 device\(s\) fewer without a new exclusion or warning/,
    );
  });

  it('catches a scanner that writes, and one that crashes', async () => {
    await expect(fuzz('writes')).rejects.toThrow(/discover wrote into the machine: sys, sys\/scan-cache/);
    await expect(fuzz('crashes')).rejects.toThrow(/discover exited 1:\nTypeError: bad vendor/);
  });
});
