import type { PluginDevice } from '@kdp/core';
import { createHost } from '@kdp/topology';
import type { SysfsFixture } from '@kdp/topology/testing';
import { gpuConfigSchema, type GpuConfig } from '../config';
import type { GpuPayload } from '../resources/gpu-payload';
import { gpuDevices } from '../resources/plan-resources';
import { scanGpus } from '../scan/scan-gpus';

/** A configuration from partial input, through the schema. */
export function gpuConfig(input: unknown = {}): GpuConfig {
  return gpuConfigSchema.parse(input);
}

/** The host (sysfs, /dev, procfs) of a fixture. */
export function fixtureHost(fixture: SysfsFixture) {
  return createHost({ sysfsRoot: fixture.root, devRoot: fixture.devRoot, procRoot: fixture.procRoot });
}

/** The plugin devices of every GPU a fixture yields under a configuration (replicas expanded). */
export async function fixtureDevices(
  fixture: SysfsFixture,
  config: GpuConfig,
): Promise<PluginDevice<GpuPayload>[]> {
  const scan = await scanGpus(fixtureHost(fixture));
  return scan.gpus.flatMap((gpu) => gpuDevices(gpu, config.sharing.replicas));
}

/** The common root flags (`--sysfs-root`, `--proc-root`, `--dev-root`) of a fixture. */
export function rootFlags(fixture: SysfsFixture): string[] {
  return ['--sysfs-root', fixture.root, '--proc-root', fixture.procRoot, '--dev-root', fixture.devRoot];
}
