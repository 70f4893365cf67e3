import { createLogger } from '@kdp/base';
import type { ResourceSet } from '@kdp/core/plugin';
import { runPluginCommand } from '@kdp/core/testing';
import type { NvmlPartitions } from '../nvml/nvml-partitions';
import { gpuPlugin } from '../plugin';
import { fixtureHost, gpuConfig } from '../testing/fixture-devices';
import { buildNvidiaServer } from '../testing/nvidia-server';
import { lazyNvmlPartitions, withDynamicMig } from './with-dynamic-mig';

const lines: string[] = [];
const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) } });

describe('withDynamicMig', () => {
  const fixture = buildNvidiaServer(1);
  afterAll(() => fixture.remove());
  const resource = (name: string, kind: string) => ({
    name,
    devices: [{ id: name, health: 'Healthy' as const, payload: { gpu: { kind } } }],
  });
  const set: ResourceSet = {
    resources: [
      resource('nvidia.com/gpu', 'nvidia'),
      resource('nvidia.com/mig-1g.10gb', 'nvidia-mig'),
      resource('amd.com/gpu', 'amd'),
    ],
  };
  const ctx = { host: fixtureHost(fixture), config: gpuConfig(), logger, rescan: () => undefined };

  it('without the flag the plan is as it is', () => {
    expect(withDynamicMig(set, undefined, ctx)).toBe(set);
  });

  it('with it, the resources of whole NVIDIA GPUs get the DRA hooks', () => {
    const out = withDynamicMig(set, () => undefined, ctx);
    expect(out.resources.map((r) => [r.name, r.dra !== undefined])).toEqual([
      ['nvidia.com/gpu', true],
      ['nvidia.com/mig-1g.10gb', false],
      ['amd.com/gpu', false],
    ]);
    // NVML not there: the pool is the devices as they are.
    const devices = set.resources[0]?.devices ?? [];
    expect(out.resources[0]?.dra?.pool?.(devices)).toEqual({ devices });
  });

  it('under migStrategy single or mixed: as it is, with an error', () => {
    const single = { ...ctx, config: gpuConfig({ nvidia: { migStrategy: 'single' } }) };
    expect(withDynamicMig(set, () => undefined, single)).toBe(set);
    expect(lines.some((l) => l.includes('needs nvidia.migStrategy none'))).toBe(true);
  });

  it('NVML is loaded at its first use only, once, a failure said once', () => {
    let loads = 0;
    const nvml = lazyNvmlPartitions(() => {
      loads += 1;
      return { ok: false, reason: 'libnvidia-ml.so.1 did not load' };
    }, logger);
    expect(loads).toBe(0);
    expect(nvml()).toBeUndefined();
    expect(nvml()).toBeUndefined();
    expect(loads).toBe(1);
    expect(lines.filter((l) => l.includes('libnvidia-ml.so.1 did not load'))).toHaveLength(1);
    const partitions = {} as NvmlPartitions;
    expect(lazyNvmlPartitions(() => ({ ok: true, partitions }), logger)()).toBe(partitions);
  });

  it('discover refuses --dra-dynamic-mig (a serve flag)', async () => {
    const { code, stderr } = await runPluginCommand(gpuPlugin, ['discover', '--dra-dynamic-mig']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/dra-dynamic-mig/);
  });
});
