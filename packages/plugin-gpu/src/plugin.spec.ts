import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { resolveCdiDevices, runPluginCommand, startPluginRun, type PluginRun } from '@kdp/core/testing';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import type { XidEvent } from './health/xid-health';
import { createGpuPlugin, gpuPlugin } from './plugin';
import { rootFlags } from './testing/fixture-devices';
import {
  AMD_GPUS,
  buildAmdMachine,
  buildIntelMachine,
  buildNvidiaMachine,
  INTEL_GPUS,
  NVIDIA_UUIDS,
} from './testing/machines';

const NV_SHARED = ['/dev/nvidiactl', '/dev/nvidia-uvm', '/dev/nvidia-uvm-tools', '/dev/nvidia-modeset'];
const specs = (paths: readonly string[]) =>
  paths.map((p) => ({ containerPath: p, hostPath: p, permissions: 'rw' }));

const runCli = (argv: readonly string[]) => runPluginCommand(gpuPlugin, argv);

/** `--config` with `nvidia.migStrategy: single` (the MIG GPU of buildNvidiaMachine as its MIG devices). */
function singleMig(fixture: SysfsFixture): string[] {
  const config = join(fixture.base, 'single-mig.yaml');
  writeFileSync(config, 'nvidia:\n  migStrategy: single\n');
  return ['--config', config];
}

/** `discover --output json` on a fixture, parsed. */
async function discoverJson(fixture: SysfsFixture, extra: readonly string[] = []): Promise<DiscoverDocument> {
  const { code, stdout, stderr } = await runCli([
    'discover',
    ...rootFlags(fixture),
    '--output',
    'json',
    ...extra,
  ]);
  if (code !== 0) throw new Error(`discover exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as DiscoverDocument;
}

describe('discover --output json', () => {
  const fixtures: SysfsFixture[] = [];
  const track = (fixture: SysfsFixture): SysfsFixture => (fixtures.push(fixture), fixture);
  afterAll(() => fixtures.forEach((fixture) => fixture.remove()));

  it('NVIDIA: GPUs by UUID on two NUMA nodes, MIG devices, the unbound GPU excluded', async () => {
    const fixture = track(buildNvidiaMachine());
    // NVIDIA's default migStrategy none (ours too): the MIG-enabled GPU is advertised whole, by its UUID.
    const whole = await discoverJson(fixture);
    expect(whole.resources[0]?.devices.map((d) => d.id)).toEqual(
      ['0000:03:00.0', '0000:04:00.0', '0000:83:00.0', '0000:86:00.0'].map(
        (a) => NVIDIA_UUIDS[a as keyof typeof NVIDIA_UUIDS],
      ),
    );
    const doc = await discoverJson(fixture, singleMig(fixture));
    expect(doc.resources.map((r) => r.resourceName)).toEqual(['nvidia.com/gpu']);
    const devices = doc.resources[0]?.devices ?? [];
    expect(devices).toHaveLength(5);
    expect(devices[0]).toEqual({
      id: NVIDIA_UUIDS['0000:03:00.0'],
      health: 'Healthy',
      numaNodes: [0],
      pciAddress: '0000:03:00.0',
      // What Allocate gives a container holding this GPU alone: NVIDIA's default envvar strategy.
      deviceSpecs: [],
      mounts: [],
      envs: { NVIDIA_VISIBLE_DEVICES: NVIDIA_UUIDS['0000:03:00.0'] },
      attributes: {
        vendor: '0x10de',
        model: 'NVIDIA H100 80GB HBM3',
        uuid: NVIDIA_UUIDS['0000:03:00.0'],
        minor: '0',
        device: '0x2330',
        driver: 'nvidia',
      },
    });
    expect(devices.map((d) => [d.id, d.numaNodes, d.pciAddress])).toEqual([
      [NVIDIA_UUIDS['0000:03:00.0'], [0], '0000:03:00.0'],
      [NVIDIA_UUIDS['0000:04:00.0'], [0], '0000:04:00.0'],
      [NVIDIA_UUIDS['0000:83:00.0'], [1], '0000:83:00.0'],
      [`MIG-${NVIDIA_UUIDS['0000:86:00.0']}/1/0`, [1], '0000:86:00.0'],
      [`MIG-${NVIDIA_UUIDS['0000:86:00.0']}/2/0`, [1], '0000:86:00.0'],
    ]);
    const config = join(fixture.base, 'specs.yaml');
    writeFileSync(config, 'nvidia:\n  migStrategy: single\n  passDeviceSpecs: true\n');
    const withSpecs = (await discoverJson(fixture, ['--config', config])).resources[0]?.devices ?? [];
    expect(withSpecs[0]?.deviceSpecs).toEqual(specs([...NV_SHARED, '/dev/nvidia0']));
    expect(withSpecs[3]?.deviceSpecs.map((s) => s.hostPath)).toEqual([
      ...NV_SHARED,
      '/dev/nvidia3',
      '/dev/nvidia-caps/nvidia-cap417',
      '/dev/nvidia-caps/nvidia-cap418',
    ]);
    expect(devices[3]?.attributes).toMatchObject({ mig: 'gi1/ci0', parent: NVIDIA_UUIDS['0000:86:00.0'] });
    expect(doc.excluded).toEqual([
      {
        path: '/sys/bus/pci/devices/0000:86:00.0',
        reason: 'MIG enabled: advertised as 2 MIG device(s) instead of the whole GPU',
      },
      {
        path: '/sys/bus/pci/devices/0000:87:00.0',
        reason: 'no driver bound (the nvidia driver is not loaded for this GPU)',
      },
    ]);
    expect(doc.warnings).toEqual([]);
  });

  it('AMD: BDF IDs, /dev/kfd plus card/render nodes, XGMI peers, two exclusions with reasons', async () => {
    const doc = await discoverJson(track(buildAmdMachine()));
    expect(doc.resources.map((r) => r.resourceName)).toEqual(['amd.com/gpu']);
    const devices = doc.resources[0]?.devices ?? [];
    expect(devices.map((d) => [d.id, d.health, d.numaNodes])).toEqual([
      [AMD_GPUS.a, 'Healthy', [0]],
      [AMD_GPUS.b, 'Healthy', [0]],
      [AMD_GPUS.c, 'Healthy', [1]],
      [AMD_GPUS.d, 'Healthy', [1]],
    ]);
    expect(devices[0]).toEqual({
      id: AMD_GPUS.a,
      health: 'Healthy',
      numaNodes: [0],
      pciAddress: AMD_GPUS.a,
      deviceSpecs: specs(['/dev/kfd', '/dev/dri/card1', '/dev/dri/renderD128']),
      mounts: [],
      envs: {},
      attributes: {
        vendor: '0x1002',
        model: 'AMD Instinct MI210',
        device: '0x740f',
        driver: 'amdgpu',
        gpuId: '3222',
        kfdNode: '2',
        xgmiPeers: AMD_GPUS.c,
      },
    });
    expect(devices[3]?.attributes.xgmiPeers).toBe(AMD_GPUS.b);
    expect(doc.excluded).toEqual([
      {
        path: '/sys/bus/pci/devices/0000:85:00.0',
        reason: 'no driver bound (amdgpu is not loaded for this GPU)',
      },
      { path: '/sys/bus/pci/devices/0000:86:00.0', reason: 'no KFD topology node lists this GPU' },
    ]);
  });

  it('Intel: i915 and xe resources, by-path mounts counted, the unbound card excluded', async () => {
    const doc = await discoverJson(track(buildIntelMachine()));
    expect(doc.resources.map((r) => r.resourceName)).toEqual(['gpu.intel.com/i915', 'gpu.intel.com/xe']);
    const [i915, xe] = doc.resources;
    expect(i915?.devices.map((d) => [d.id, d.numaNodes, d.deviceSpecs.map((s) => s.hostPath)])).toEqual([
      [INTEL_GPUS.igpu, [], ['/dev/dri/card0', '/dev/dri/renderD128']],
      [INTEL_GPUS.flex, [0], ['/dev/dri/card1', '/dev/dri/renderD129']],
    ]);
    expect(i915?.devices[1]?.mounts).toEqual(
      ['card', 'render'].map((k) => {
        const path = `/dev/dri/by-path/pci-${INTEL_GPUS.flex}-${k}`;
        return { containerPath: path, hostPath: path, readOnly: true };
      }),
    );
    expect(xe?.devices).toEqual([
      {
        id: INTEL_GPUS.battlemage,
        health: 'Healthy',
        numaNodes: [1],
        pciAddress: INTEL_GPUS.battlemage,
        deviceSpecs: specs(['/dev/dri/card2', '/dev/dri/renderD130']),
        mounts: [],
        envs: {},
        attributes: {
          vendor: '0x8086',
          model: 'Intel GPU 0xe20b',
          device: '0xe20b',
          driver: 'xe',
          card: 'card2',
        },
      },
    ]);
    expect(doc.excluded).toEqual([
      {
        path: '/sys/bus/pci/devices/0000:84:00.0',
        reason: 'no driver bound (neither i915 nor xe is loaded for this GPU)',
      },
    ]);
  });

  it('a GPU whose device node is missing is excluded with the reason', async () => {
    const fixture = track(buildNvidiaMachine());
    fixture.removeDevNode('/dev/nvidia1');
    const doc = await discoverJson(fixture);
    expect(doc.resources[0]?.devices.map((d) => d.id)).not.toContain(NVIDIA_UUIDS['0000:04:00.0']);
    expect(doc.excluded).toContainEqual({
      path: '/sys/bus/pci/devices/0000:04:00.0',
      reason: `${NVIDIA_UUIDS['0000:04:00.0']}: /dev/nvidia1 is missing (advertised once healthy)`,
    });
  });

  it('garbage in sysfs and procfs degrades one GPU with a reason, never the scan', async () => {
    const fixture = track(buildNvidiaMachine());
    writeFileSync(
      join(fixture.procRoot, 'driver/nvidia/gpus/0000:03:00.0/information'),
      '\u0000\u00ff garbage\n',
    );
    fixture.write(`${fixture.pciDir('0000:83:00.0')}/numa_node`, 'banana\n');
    writeFileSync(join(fixture.procRoot, 'driver/nvidia-caps/mig-minors'), 'junk\n');
    const doc = await discoverJson(fixture, singleMig(fixture));
    const ids = doc.resources[0]?.devices.map((d) => d.id);
    expect(ids).not.toContain(NVIDIA_UUIDS['0000:03:00.0']);
    expect(doc.excluded).toContainEqual({
      path: '/sys/bus/pci/devices/0000:03:00.0',
      reason: '/proc/driver/nvidia/gpus/0000:03:00.0/information has no valid GPU UUID',
    });
    expect(doc.resources[0]?.devices.find((d) => d.pciAddress === '0000:83:00.0')?.numaNodes).toEqual([1]);
    expect(doc.warnings).toContain('0000:83:00.0: numa_node is not a number ("banana")');
    // MIG minors fall back to DeviceFileMinor in the capability access files.
    expect(ids).toContain(`MIG-${NVIDIA_UUIDS['0000:86:00.0']}/1/0`);
  });

  it('config: split by model, explicit model names, replicas', async () => {
    const fixture = track(buildNvidiaMachine());
    const config = join(fixture.base, 'gpu.yaml');
    writeFileSync(
      config,
      'nvidia:\n  migStrategy: single\nsplitByModel: true\nmodelResourceNames:\n  "NVIDIA A100-SXM4-80GB": example.com/a100-mig\nsharing:\n  replicas: 2\n',
    );
    const doc = await discoverJson(fixture, ['--config', config]);
    expect(doc.resources.map((r) => [r.resourceName, r.devices.map((d) => d.id)])).toEqual([
      [
        'example.com/a100-mig',
        [1, 2].flatMap((gi) => [0, 1].map((n) => `MIG-${NVIDIA_UUIDS['0000:86:00.0']}/${gi}/0::${n}`)),
      ],
      [
        'nvidia.com/h100-80gb-hbm3',
        ['0000:03:00.0', '0000:04:00.0', '0000:83:00.0'].flatMap((a) =>
          [0, 1].map((n) => `${NVIDIA_UUIDS[a as keyof typeof NVIDIA_UUIDS]}::${n}`),
        ),
      ],
    ]);
    expect(doc.resources[1]?.devices[1]?.attributes.replica).toBe('1');
  });

  it('a bad config exits 2 naming the file, the field and the problem', async () => {
    const fixture = track(buildNvidiaMachine());
    const config = join(fixture.base, 'bad.yaml');
    writeFileSync(config, 'sharing:\n  replicas: 0\nresourceNames:\n  nvidia: "not a name"\n');
    const { code, stdout, stderr } = await runCli([
      'discover',
      '--sysfs-root',
      fixture.root,
      '--config',
      config,
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`${config}: sharing.replicas: `);
    expect(stderr).toContain(`${config}: resourceNames.nvidia: not a valid extended resource name`);
    const unknown = await runCli([
      'serve',
      ...rootFlags(fixture),
      '--device-plugin-dir',
      fixture.base,
      '--config',
      config.replace('bad', 'nope'),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(config.replace('bad', 'nope'));
  });
});

/** A kubelet-sim and an in-process `serve` against it (roots of `fixture`, plus `args`). */
async function serveAgainstSim(
  fixture: SysfsFixture,
  args: readonly string[],
  options: { readonly registry?: string; readonly plugin?: typeof gpuPlugin } = {},
): Promise<{ sim: KubeletSim; run: PluginRun; close(): Promise<void> }> {
  const dir = mkdtempSync(join(fixture.base, 'dp-'));
  const sim = await createKubeletSim({
    dir,
    ...(options.registry !== undefined ? { pluginsRegistryDir: options.registry } : {}),
  });
  const run = startPluginRun(options.plugin ?? gpuPlugin, [
    'serve',
    ...rootFlags(fixture),
    ...['--device-plugin-dir', dir, '--poll-interval', '1h'],
    ...args,
  ]);
  return {
    sim,
    run,
    async close() {
      await run.stop();
      await sim.close();
    },
  };
}

/** Device specs and mounts in a comparable order. */
const byPath = <T extends { containerPath: string }>(list: readonly T[]): T[] =>
  [...list].sort((a, b) => (a.containerPath < b.containerPath ? -1 : 1));

describe('gpu-device-plugin serve in-process', () => {
  it.each([
    ['NVIDIA (MIG included)', buildNvidiaMachine, 'nvidia.com/gpu', 5],
    ['AMD', buildAmdMachine, 'amd.com/gpu', 4],
    ['Intel (by-path mounts)', buildIntelMachine, 'gpu.intel.com/i915', 2],
  ] as const)(
    '%s: --device-list-strategy cdi answers CDI names that resolve to what device-specs returns',
    async (_vendor, build, resource, count) => {
      const fixture = build();
      const cdiDir = join(fixture.base, 'cdi');
      const admitAll = async (strategy: string) => {
        const serve = await serveAgainstSim(fixture, [
          ...['--device-list-strategy', strategy, '--cdi-dir', cdiDir],
          ...(resource === 'nvidia.com/gpu' ? singleMig(fixture) : []),
        ]);
        try {
          await serve.sim.until(resource, (state) => state.healthy.length === count);
          const admission = await serve.sim.admit({ pod: 'p', container: 'c', resource, count });
          const specs = readdirSync(cdiDir).filter((name) => name.endsWith('.json'));
          return {
            admission,
            specs,
            resolved: resolveCdiDevices(
              cdiDir,
              admission.response.cdiDevices.map((d) => d.name),
            ),
          };
        } finally {
          await serve.close();
        }
      };
      try {
        const cdi = await admitAll('cdi');
        const { response } = cdi.admission;
        // One spec per resource kind; NVIDIA keeps NVIDIA's own kind k8s.device-plugin.nvidia.com/gpu.
        expect(cdi.specs.length).toBeGreaterThan(0);
        expect(cdi.resolved.files).toHaveLength(1);
        expect(response.cdiDevices.length).toBeGreaterThan(0);
        for (const { name } of response.cdiDevices)
          expect(name.startsWith(`k8s.device-plugin.${resource}=`)).toBe(true);
        // CDI alone: no device nodes, mounts or NVIDIA_VISIBLE_DEVICES beside the names.
        expect([response.devices, response.mounts, response.envs]).toEqual([[], [], {}]);
        // The spec is removed at shutdown.
        expect(readdirSync(cdiDir).filter((name) => name.endsWith('.json'))).toEqual([]);
        const specs = await admitAll('device-specs');
        expect(specs.admission.deviceIds.sort()).toEqual(cdi.admission.deviceIds.sort());
        expect(specs.admission.response.cdiDevices).toEqual([]);
        expect(specs.admission.response.devices.length).toBeGreaterThan(0);
        expect(byPath(cdi.resolved.devices)).toEqual(byPath(specs.admission.response.devices));
        expect(byPath(cdi.resolved.mounts)).toEqual(byPath(specs.admission.response.mounts));
        if (resource === 'gpu.intel.com/i915') expect(cdi.resolved.mounts).toHaveLength(2);
      } finally {
        fixture.remove();
      }
    },
    60_000,
  );

  it('--device-list-strategy wins over nvidia.deviceListStrategy for NVIDIA resources', async () => {
    const fixture = buildNvidiaMachine();
    const config = join(fixture.base, 'cdi.yaml');
    writeFileSync(config, 'nvidia:\n  migStrategy: single\n  deviceListStrategy: [cdi]\n');
    const cdiDir = join(fixture.base, 'cdi');
    const serve = await serveAgainstSim(fixture, [
      ...['--config', config, '--cdi-dir', cdiDir, '--device-list-strategy', 'envvar'],
    ]);
    try {
      await serve.sim.until('nvidia.com/gpu', (state) => state.healthy.length === 5);
      const uuid = NVIDIA_UUIDS['0000:83:00.0'];
      const { response, deviceIds } = await serve.sim.admit({
        ...{ pod: 'p', container: 'c', resource: 'nvidia.com/gpu', count: 1, affinity: [1] },
      });
      expect(deviceIds).toHaveLength(1);
      expect(response.envs).toEqual({ NVIDIA_VISIBLE_DEVICES: deviceIds[0] });
      expect([response.cdiDevices, response.devices]).toEqual([[], []]);
      expect(existsSync(cdiDir) ? readdirSync(cdiDir) : []).toEqual([]);
      expect(deviceIds[0]?.startsWith('MIG-') || deviceIds[0] === uuid).toBe(true);
    } finally {
      await serve.close();
      fixture.remove();
    }
  });

  it('--registration plugin-watcher: registers through the kubelet’s plugin watcher, not kubelet.sock', async () => {
    const fixture = buildAmdMachine();
    const registry = join(fixture.base, 'plugins_registry');
    mkdirSync(registry);
    const serve = await serveAgainstSim(
      fixture,
      ['--registration', 'plugin-watcher', '--plugins-registry-dir', registry],
      { registry },
    );
    try {
      const state = await serve.sim.until('amd.com/gpu', (s) => s.healthy.length === 4);
      expect(state.endpoint.startsWith(registry)).toBe(true);
      expect(readdirSync(registry).length).toBeGreaterThan(0);
      const { deviceIds } = await serve.sim.admit({
        pod: 'p',
        container: 'c',
        resource: 'amd.com/gpu',
        count: 2,
      });
      expect(deviceIds).toHaveLength(2);
    } finally {
      await serve.close();
      fixture.remove();
    }
  });

  it('an NVML Xid event marks the GPU Unhealthy at once; NVML is started once and stopped at shutdown', async () => {
    const fixture = buildNvidiaMachine();
    const config = join(fixture.base, 'cdi.yaml');
    writeFileSync(
      config,
      'nvidia:\n  migStrategy: single\n  deviceListStrategy: [cdi]\nhealth:\n  xidHoldSeconds: 0\n',
    );
    const cdiDir = join(fixture.base, 'cdi');
    let emit: (event: XidEvent) => void = () => undefined;
    const calls = { created: 0, stopped: 0 };
    const plugin = createGpuPlugin({
      xidSource: () => {
        calls.created++;
        return { start: (onEvent) => ((emit = onEvent), () => void calls.stopped++) };
      },
    });
    const serve = await serveAgainstSim(fixture, ['--cdi-dir', cdiDir, '--config', config], { plugin });
    try {
      await serve.sim.until('nvidia.com/gpu', (state) => state.healthy.length === 5);
      // nvidia.deviceListStrategy [cdi] (no flag): the runtime writes the NVIDIA spec under NVIDIA's own kind.
      const [spec] = readdirSync(cdiDir);
      expect(JSON.parse(readFileSync(join(cdiDir, spec as string), 'utf8'))).toMatchObject({
        kind: 'k8s.device-plugin.nvidia.com/gpu',
      });
      const uuid = NVIDIA_UUIDS['0000:04:00.0'];
      const unhealthy = serve.sim.waitFor('devices', (e) => e.unhealthy.includes(uuid), 10_000);
      emit({ uuid, xid: 79 });
      const line = await serve.run.waitForLog((l) => l.msg === 'device unhealthy' && l.device === uuid);
      expect(line).toMatchObject({ resource: 'nvidia.com/gpu', problem: 'NVML reported critical Xid 79' });
      await unhealthy;
      expect(calls).toEqual({ created: 1, stopped: 0 });
      expect(await serve.run.stop()).toBe(0);
      expect(calls).toEqual({ created: 1, stopped: 1 });
      expect(readdirSync(cdiDir)).toEqual([]);
    } finally {
      await serve.close();
      fixture.remove();
    }
  });
});
