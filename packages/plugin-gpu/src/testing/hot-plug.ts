import { existsSync, mkdirSync, readlinkSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SysfsFixture } from '@kdp/topology/testing';

// Changes a running plugin must notice in sysfs and procfs, made the way the kernel shows them: a PCI function
// unbound from its driver, or gone from the bus (and from /proc/driver/nvidia/gpus) and back.

/** Unbinds a PCI function from its driver (its `driver` link and the driver's link to it); returns the driver. */
export function unbindDriver(fixture: SysfsFixture, address: string): string {
  const dir = join(fixture.root, fixture.pciDir(address));
  const driver = basename(readlinkSync(join(dir, 'driver')));
  rmSync(join(dir, 'driver'));
  rmSync(join(fixture.root, `bus/pci/drivers/${driver}/${address}`));
  return driver;
}

/** Binds a PCI function to a driver again (after {@link unbindDriver}). */
export function bindDriver(fixture: SysfsFixture, address: string, driver: string): void {
  fixture.linkTo(`${fixture.pciDir(address)}/driver`, `bus/pci/drivers/${driver}`);
  fixture.linkTo(`bus/pci/drivers/${driver}/${address}`, fixture.pciDir(address));
}

const aside = (fixture: SysfsFixture, address: string): string => join(fixture.base, 'unplugged', address);

/**
 * A GPU falls off the bus: its `bus/pci/devices` entry and its /proc/driver/nvidia/gpus directory (where it has
 * one) are moved aside; its /dev node stays, as the driver's nodes do on a real host.
 */
export function unplugGpu(fixture: SysfsFixture, address: string): void {
  mkdirSync(aside(fixture, address), { recursive: true });
  renameSync(join(fixture.root, 'bus/pci/devices', address), join(aside(fixture, address), 'sysfs'));
  const proc = join(fixture.procRoot, 'driver/nvidia/gpus', address);
  if (existsSync(proc)) renameSync(proc, join(aside(fixture, address), 'procfs'));
}

/** The GPU of {@link unplugGpu} comes back: procfs first, then the PCI function (as the driver probes it). */
export function replugGpu(fixture: SysfsFixture, address: string): void {
  const proc = join(aside(fixture, address), 'procfs');
  if (existsSync(proc)) renameSync(proc, join(fixture.procRoot, 'driver/nvidia/gpus', address));
  renameSync(join(aside(fixture, address), 'sysfs'), join(fixture.root, 'bus/pci/devices', address));
}
