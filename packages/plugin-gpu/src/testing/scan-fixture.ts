import type { PluginDevice } from '@kdp/core';
import type { SysfsFixture } from '@kdp/topology/testing';
import { toPluginDevices, type GpuPayload } from '../allocate/gpu-devices';
import { scanGpus } from '../discovery/scan-gpus';
import { defaultGpuConfig, gpuConfigSchema, type GpuConfig } from '../gpu-config';
import { createGpuTracker } from '../health/gpu-tracker';

/** A configuration from partial input, through the schema. */
export function gpuConfig(input: unknown = {}): GpuConfig {
  return input === undefined ? defaultGpuConfig : gpuConfigSchema.parse(input);
}

/** The plugin devices a fixture yields under a configuration. */
export async function fixtureDevices(
  fixture: SysfsFixture,
  config: GpuConfig,
): Promise<PluginDevice<GpuPayload>[]> {
  const scan = await scanGpus({
    sysfsRoot: fixture.root,
    procRoot: fixture.procRoot,
    devRoot: fixture.devRoot,
  });
  return toPluginDevices(createGpuTracker().update(scan).gpus, config);
}
