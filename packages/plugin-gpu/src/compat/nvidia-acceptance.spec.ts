import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand, startPluginRun } from '@kdp/core/testing';
import { createKubeletSim } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { createGpuPlugin } from '../plugin';
import { rootFlags } from '../testing/fixture-devices';
import { buildNvidiaMachine, NVIDIA_UUIDS } from '../testing/machines';
import { buildNvidiaServer, nvidiaServerUuid } from '../testing/nvidia-server';
import { nvidiaCompat } from './nvidia';

// NVIDIA/k8s-device-plugin v0.20's published examples, re-typed: the README's configuration file and time-slicing
// examples, the helm chart's config examples (README "Single Config File Example") and the environment its
// DaemonSet template sets, and the static DaemonSets' env (deployments/static/*.yml). Each runs against our binary
// on an 8-GPU fixture node (H100s, UUIDs GPU-00000000-0000-4000-8000-00000000000<i>, nvidia-smi index i).

// The README's configuration file; its helm section's dp-example-config0.yaml is the same file.
const README_CONFIG = `version: v1
flags:
  migStrategy: "none"
  failOnInitError: true
  nvidiaDriverRoot: "/"
  plugin:
    passDeviceSpecs: false
    deviceListStrategy: "envvar"
    deviceIDStrategy: "uuid"
`;

const TIME_SLICING = `version: v1
sharing:
  timeSlicing:
    resources:
    - name: nvidia.com/gpu
      replicas: 10
`;

const TIME_SLICING_RENAMED = `version: v1
sharing:
  timeSlicing:
    renameByDefault: true
    resources:
    - name: nvidia.com/gpu
      replicas: 10
`;

/** What the helm chart's DaemonSet template always sets (MPS_ROOT, CONFIG_FILE with a ConfigMap, the runtime's). */
const helmEnv = (configFile: string) => ({
  MPS_ROOT: '/run/nvidia/mps',
  CONFIG_FILE: configFile,
  NVIDIA_VISIBLE_DEVICES: 'all',
  NVIDIA_DRIVER_CAPABILITIES: 'compute,utility',
});

const UUIDS = Array.from({ length: 8 }, (_, i) => nvidiaServerUuid(i));

describe('drop-in for NVIDIA k8s-device-plugin (published examples)', () => {
  const plugin = { ...createGpuPlugin(), compat: [nvidiaCompat] };
  let fixture: SysfsFixture;
  const file = (name: string, text: string): string => {
    const path = join(fixture.base, 'config', name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  const discover = async (argv: readonly string[], env: Record<string, string> = {}) => {
    const result = await runPluginCommand(
      plugin,
      ['discover', '--output', 'json', ...rootFlags(fixture), ...argv],
      {
        env,
      },
    );
    expect([result.code, result.stderr.split('\n').filter((l) => l.includes('"level":50'))]).toEqual([0, []]);
    return JSON.parse(result.stdout) as DiscoverDocument & { config: Record<string, unknown> };
  };
  /** Resource name → device count. */
  const capacity = (doc: DiscoverDocument) =>
    Object.fromEntries(doc.resources.map((r) => [r.resourceName, r.devices.length]));

  beforeEach(() => {
    fixture = buildNvidiaServer(8);
  });
  afterEach(() => fixture.remove());

  it('static nvidia-device-plugin.yml (env: []): 8 × nvidia.com/gpu by UUID, NVIDIA_VISIBLE_DEVICES=<uuid>', async () => {
    const doc = await discover([]);
    expect(doc.resources.map((r) => [r.resourceName, r.devices.map((d) => d.id)])).toEqual([
      ['nvidia.com/gpu', UUIDS],
    ]);
    expect(doc.resources[0]?.devices[3]?.envs).toEqual({ NVIDIA_VISIBLE_DEVICES: UUIDS[3] });
    expect(doc.resources[0]?.devices[3]?.deviceSpecs).toEqual([]);
  });

  // NVIDIA v0.20 passes /dev/nvidiaN alone (its runtime hook adds the control nodes); kdp passes the control nodes too.
  it('static compat-with-cpumanager.yml (PASS_DEVICE_SPECS=true): the env plus the device nodes as DeviceSpecs', async () => {
    const doc = await discover([], { PASS_DEVICE_SPECS: 'true' });
    const device = doc.resources[0]?.devices[2];
    expect(device?.envs).toEqual({ NVIDIA_VISIBLE_DEVICES: UUIDS[2] });
    expect(device?.deviceSpecs.map((s) => [s.containerPath, s.hostPath, s.permissions])).toEqual(
      [
        '/dev/nvidiactl',
        '/dev/nvidia-uvm',
        '/dev/nvidia-uvm-tools',
        '/dev/nvidia-modeset',
        '/dev/nvidia2',
      ].map((path) => [path, path, 'rw']),
    );
  });

  it("README configuration file as helm's config0 (CONFIG_FILE): converted, shown under config", async () => {
    const doc = await discover([], helmEnv(file('config.yaml', README_CONFIG)));
    expect(capacity(doc)).toEqual({ 'nvidia.com/gpu': 8 });
    expect(doc.config).toMatchObject({
      nvidia: {
        migStrategy: 'none',
        deviceListStrategy: ['envvar'],
        passDeviceSpecs: false,
        deviceIDStrategy: 'uuid',
      },
    });
  });

  it('README time-slicing: replicas 10 on 8 GPUs advertise 80 nvidia.com/gpu, IDs <uuid>::<n>', async () => {
    const doc = await discover(['--config-file', file('ts.yaml', TIME_SLICING)]);
    expect(capacity(doc)).toEqual({ 'nvidia.com/gpu': 80 });
    const devices = doc.resources[0]?.devices ?? [];
    expect(devices.slice(0, 11).map((d) => d.id)).toEqual([
      ...Array.from({ length: 10 }, (_, n) => `${UUIDS[0]}::${n}`),
      `${UUIDS[1]}::0`,
    ]);
    // A replica hands over its GPU's UUID, as NVIDIA's plugin (the replica suffix is stripped).
    expect(devices[17]?.envs).toEqual({ NVIDIA_VISIBLE_DEVICES: UUIDS[1] });
  });

  it('README time-slicing with renameByDefault: 80 nvidia.com/gpu.shared instead of 8 nvidia.com/gpu', async () => {
    const doc = await discover(['-config-file', file('ts.yaml', TIME_SLICING_RENAMED)]);
    expect(capacity(doc)).toEqual({ 'nvidia.com/gpu.shared': 80 });
    expect(doc.resources[0]?.devices[79]?.id).toBe(`${UUIDS[7]}::9`);
  });

  it('helm values deviceIDStrategy=index: NVIDIA_VISIBLE_DEVICES holds nvidia-smi indexes, IDs stay UUIDs', async () => {
    const doc = await discover([], { DEVICE_ID_STRATEGY: 'index', DEVICE_LIST_STRATEGY: 'envvar' });
    expect(doc.resources[0]?.devices.map((d) => [d.id, d.envs['NVIDIA_VISIBLE_DEVICES']])).toEqual(
      UUIDS.map((uuid, i) => [uuid, String(i)]),
    );
  });

  it('flags beat env beat the file, as NVIDIA documents', async () => {
    const config = file('c.yaml', 'version: v1\nflags:\n  plugin:\n    deviceIDStrategy: uuid\n');
    const doc = await discover(
      [
        '--device-id-strategy=index',
        '--device-list-strategy=envvar,cdi-cri',
        '-pass-device-specs',
        `--config-file=${config}`,
      ],
      {
        DEVICE_ID_STRATEGY: 'uuid',
        MIG_STRATEGY: 'mixed',
      },
    );
    expect(doc.config).toMatchObject({
      nvidia: {
        deviceIDStrategy: 'index',
        migStrategy: 'mixed',
        deviceListStrategy: ['envvar', 'cdi'],
        passDeviceSpecs: true,
      },
    });
    expect(doc.resources[0]?.devices[5]?.envs).toEqual({ NVIDIA_VISIBLE_DEVICES: '5' });
  });

  it('refuses what kdp does not do with exit 2 naming the variable, flag or field', async () => {
    const cases: [string[], Record<string, string>, string][] = [
      [
        [],
        { DEVICE_LIST_STRATEGY: 'volume-mounts' },
        'environment variable DEVICE_LIST_STRATEGY: volume-mounts is not supported',
      ],
      [['--gds-enabled'], {}, '--gds-enabled: true is not supported'],
      [
        [
          '--config-file',
          file(
            'mps.yaml',
            'version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 10\n',
          ),
        ],
        {},
        'sharing.mps: not supported: kdp runs no MPS control daemon',
      ],
    ];
    for (const [argv, env, message] of cases) {
      const result = await runPluginCommand(plugin, ['discover', ...rootFlags(fixture), ...argv], { env });
      expect([result.code, result.stderr]).toEqual([2, expect.stringContaining(message)]);
    }
  });

  it('--help lists the NVIDIA flags and variables, each accepted or refused', async () => {
    const help = await runPluginCommand(plugin, ['--help']);
    expect(help.stdout).toContain('Drop-in for NVIDIA/k8s-device-plugin v0.20:');
    expect(help.stdout).toMatch(/-mig-strategy VALUE +none, single or mixed/);
    expect(help.stdout).toMatch(/\$DP_ENABLE_HEALTHCHECKS +refused: set health.ignoredXids/);
  });

  it('serves the helm DaemonSet (no command, NVIDIA flags) and refuses 2 replicas with failRequestsGreaterThanOne', async () => {
    const dir = join(fixture.base, 'device-plugins');
    mkdirSync(dir);
    // The README's time-slicing example with failRequestsGreaterThanOne, as the helm chart's ConfigMap holds it.
    const config = file(
      'config.yaml',
      TIME_SLICING.replace('    resources:', '    failRequestsGreaterThanOne: true\n    resources:'),
    );
    const sim = await createKubeletSim({ dir });
    const run = startPluginRun(plugin, [`--kubelet-socket=${dir}/kubelet.sock`, ...rootFlags(fixture)], {
      env: helmEnv(config),
    });
    try {
      const resource = 'nvidia.com/gpu';
      await sim.until(resource, (state) => state.healthy.length === 80);
      const one = await sim.admit({ pod: 'a', container: 'c', resource, count: 1 });
      expect(one.deviceIds[0]).toMatch(/^GPU-00000000-0000-4000-8000-0000000000\d\d::\d$/);
      expect(one.response.envs).toEqual({ NVIDIA_VISIBLE_DEVICES: one.deviceIds[0]?.split('::')[0] });
      await expect(sim.admit({ pod: 'b', container: 'c', resource, count: 2 })).rejects.toThrow(
        "request for 'nvidia.com/gpu: 2' too large: maximum request size for shared resources is 1",
      );
    } finally {
      expect(await run.stop()).toBe(0);
      await sim.close();
    }
  });

  // Neither the static DaemonSet (v0.20: `env: []`, the image's entrypoint) nor the helm chart (migStrategy: null
  // leaves MIG_STRATEGY out) sets a MIG strategy: NVIDIA's default none advertises a MIG-enabled GPU whole.
  it('without MIG_STRATEGY (static DaemonSet, helm env): a MIG-enabled GPU is advertised whole by its UUID', async () => {
    const mig = buildNvidiaMachine();
    try {
      const whole = [
        ...['0000:03:00.0', '0000:04:00.0', '0000:83:00.0', '0000:86:00.0'].map(
          (a) => NVIDIA_UUIDS[a as keyof typeof NVIDIA_UUIDS],
        ),
      ];
      for (const env of [{}, { MPS_ROOT: '/run/nvidia/mps', NVIDIA_VISIBLE_DEVICES: 'all' }]) {
        const result = await runPluginCommand(plugin, ['discover', '--output', 'json', ...rootFlags(mig)], {
          env,
        });
        expect(result.code).toBe(0);
        const doc = JSON.parse(result.stdout) as DiscoverDocument & { config: Record<string, unknown> };
        expect(doc.resources.map((r) => [r.resourceName, r.devices.map((d) => d.id)])).toEqual([
          ['nvidia.com/gpu', whole],
        ]);
        expect(doc.config).toMatchObject({ nvidia: { migStrategy: 'none' } });
      }
      const single = await runPluginCommand(plugin, ['discover', '--output', 'json', ...rootFlags(mig)], {
        env: { MIG_STRATEGY: 'single' },
      });
      expect(JSON.parse(single.stdout).resources[0].devices.map((d: { id: string }) => d.id)).toContain(
        `MIG-${NVIDIA_UUIDS['0000:86:00.0']}/1/0`,
      );
    } finally {
      mig.remove();
    }
  });

  // The helm chart with nvidiaDriverRoot: /run/nvidia/driver (GPU operator nodes, the driver in a container): it
  // sets NVIDIA_DRIVER_ROOT and mounts that root at /driver-root; CONTAINER_DRIVER_ROOT stands in for the mount here.
  it('NVIDIA_DRIVER_ROOT=/run/nvidia/driver: nodes found under the mounted root, handed over under the host root', async () => {
    const env = {
      ...helmEnv(file('empty.yaml', 'version: v1\n')),
      NVIDIA_DRIVER_ROOT: '/run/nvidia/driver',
      PASS_DEVICE_SPECS: 'true',
      CONTAINER_DRIVER_ROOT: fixture.base,
    };
    // No --dev-root: it follows the mounted driver root (<root>/dev), as NVIDIA's plugin looks there.
    const roots = ['--sysfs-root', fixture.root, '--proc-root', fixture.procRoot];
    const run = async (extra: Record<string, string> = {}) => {
      const result = await runPluginCommand(plugin, ['discover', '--output', 'json', ...roots], {
        env: { ...env, ...extra },
      });
      expect([result.code, result.code === 0 ? '' : result.stderr]).toEqual([0, '']);
      return JSON.parse(result.stdout) as DiscoverDocument & { config: Record<string, unknown> };
    };
    const doc = await run();
    expect(capacity(doc)).toEqual({ 'nvidia.com/gpu': 8 });
    expect(doc.config).toMatchObject({
      nvidia: { driverRoot: '/run/nvidia/driver', containerDriverRoot: fixture.base },
    });
    const specs = doc.resources[0]?.devices[2]?.deviceSpecs.map((s) => [s.containerPath, s.hostPath]);
    expect(specs).toEqual(
      [
        '/dev/nvidiactl',
        '/dev/nvidia-uvm',
        '/dev/nvidia-uvm-tools',
        '/dev/nvidia-modeset',
        '/dev/nvidia2',
      ].map((path) => [path, `/run/nvidia/driver${path}`]),
    );
    // NVIDIA_DEV_ROOT=/ (device nodes on the host's /dev, the driver elsewhere): host paths stay /dev/….
    const hostDev = await run({ NVIDIA_DEV_ROOT: '/' });
    expect(hostDev.resources[0]?.devices[2]?.deviceSpecs.map((s) => s.hostPath)).toContain('/dev/nvidia2');
    // A relative root is refused, naming the variable.
    const bad = await runPluginCommand(plugin, ['discover', ...roots], {
      env: { NVIDIA_DRIVER_ROOT: 'run/nvidia/driver' },
    });
    expect([bad.code, bad.stderr]).toEqual([
      2,
      expect.stringContaining(
        'environment variable NVIDIA_DRIVER_ROOT: "run/nvidia/driver" is not an absolute path',
      ),
    ]);
  });
});
