import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { resolveCdiDevices, runPluginCommand, startPluginRun } from '@kdp/core/testing';
import { createKubeletSim, type Admission } from '@kdp/kubelet-sim';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { sriovPlugin } from './plugin';
import { addTwoPfNode, UPSTREAM_CONFIG } from './testing/sriov-node';

describe('sriov-device-plugin (in-process)', () => {
  let fixture: SysfsFixture;
  const roots = (): string[] => [
    ...['--sysfs-root', fixture.root, '--proc-root', fixture.procRoot, '--dev-root', fixture.devRoot],
  ];
  const run = (argv: string[]) => runPluginCommand(sriovPlugin, argv);
  const dpdkInfo = (id: string, group: number): string =>
    `{"${id}":{"generic":{"deviceID":"${id}"},"vfio":{"dev-mount":"/dev/vfio/${group}","mount":"/dev/vfio/vfio"}}}`;
  const config = (name: string, text: string): string => {
    const file = join(fixture.base, name);
    writeFileSync(file, text);
    return file;
  };

  beforeEach(() => {
    fixture = createSysfsFixture();
    addTwoPfNode(fixture);
  });
  afterEach(() => fixture.remove());

  it('discover --output json reports every pool, device and exclusion field by field', async () => {
    const result = await run([
      'discover',
      '--output',
      'json',
      ...roots(),
      '--config',
      config('c.json', UPSTREAM_CONFIG),
    ]);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as DiscoverDocument;
    expect(doc.resources.map((r) => [r.resourceName, r.devices.map((d) => d.id)])).toEqual([
      ['intel.com/intel_sriov_netdevice', ['0000:3b:02.0', '0000:3b:02.1', '0000:3b:02.2', '0000:3b:02.3']],
      ['intel.com/intel_sriov_dpdk', ['0000:3b:02.4', '0000:3b:02.5', '0000:3b:02.6', '0000:3b:02.7']],
      ['nvidia.com/mlnx_sriov_rdma', ['0000:d8:00.2', '0000:d8:00.3', '0000:d8:00.4', '0000:d8:00.5']],
      ['nvidia.com/mlnx_rest', ['0000:d8:00.6', '0000:d8:01.0', '0000:d8:01.1']],
    ]);
    expect(doc.resources[0]?.devices[0]).toEqual({
      id: '0000:3b:02.0',
      health: 'Healthy',
      numaNodes: [0],
      pciAddress: '0000:3b:02.0',
      deviceSpecs: [],
      // discover prints what a pod holding this device alone receives.
      mounts: [],
      envs: {
        PCIDEVICE_INTEL_COM_INTEL_SRIOV_NETDEVICE: '0000:3b:02.0',
        PCIDEVICE_INTEL_COM_INTEL_SRIOV_NETDEVICE_INFO:
          '{"0000:3b:02.0":{"generic":{"deviceID":"0000:3b:02.0"}}}',
      },
      attributes: {
        vendor: '8086',
        device: '154c',
        driver: 'iavf',
        pfName: 'ens1f0',
        pfAddress: '0000:3b:00.0',
        vfIndex: '0',
        netdev: 'ens1f0v0',
        linkType: 'ether',
        iommuGroup: '100',
      },
    });
    expect(doc.resources[1]?.devices[3]).toEqual({
      id: '0000:3b:02.7',
      health: 'Healthy',
      numaNodes: [0],
      pciAddress: '0000:3b:02.7',
      deviceSpecs: [
        { containerPath: '/dev/vfio/vfio', hostPath: '/dev/vfio/vfio', permissions: 'rw' },
        { containerPath: '/dev/vfio/107', hostPath: '/dev/vfio/107', permissions: 'rw' },
      ],
      envs: {
        PCIDEVICE_INTEL_COM_INTEL_SRIOV_DPDK: '0000:3b:02.7',
        PCIDEVICE_INTEL_COM_INTEL_SRIOV_DPDK_INFO: dpdkInfo('0000:3b:02.7', 107),
      },
      mounts: [],
      attributes: {
        vendor: '8086',
        device: '154c',
        driver: 'vfio-pci',
        pfName: 'ens1f0',
        pfAddress: '0000:3b:00.0',
        vfIndex: '7',
        linkType: 'ether',
        iommuGroup: '107',
      },
    });
    expect(doc.resources[2]?.devices[1]).toMatchObject({
      id: '0000:d8:00.3',
      numaNodes: [1],
      deviceSpecs: [
        { containerPath: '/dev/infiniband/uverbs3', hostPath: '/dev/infiniband/uverbs3', permissions: 'rw' },
        { containerPath: '/dev/infiniband/issm3', hostPath: '/dev/infiniband/issm3', permissions: 'rw' },
        { containerPath: '/dev/infiniband/umad3', hostPath: '/dev/infiniband/umad3', permissions: 'rw' },
        { containerPath: '/dev/infiniband/rdma_cm', hostPath: '/dev/infiniband/rdma_cm', permissions: 'rw' },
      ],
      attributes: { driver: 'mlx5_core', pfName: 'ens2f0', vfIndex: '1', rdmaDevices: 'mlx5_3' },
    });
    // needVhostNet without /dev/vhost-net on the host: no device nodes, as upstream; the info says vhost.
    expect(doc.resources[3]?.devices[2]).toMatchObject({ id: '0000:d8:01.1', deviceSpecs: [] });
    expect(doc.resources[3]?.devices[2]?.envs['PCIDEVICE_NVIDIA_COM_MLNX_REST_INFO']).toBe(
      '{"0000:d8:01.1":{"extra":{"team":"a\\u0026b"},"generic":{"deviceID":"0000:d8:01.1"},' +
        '"vhost":{"net-mount":"/dev/vhost-net","tun-mount":"/dev/net/tun"}}}',
    );
    expect(doc.excluded).toEqual([
      { path: '/sys/bus/pci/devices/0000:00:1f.6', reason: 'interface eno1 holds the IPv4 default route' },
      {
        path: '/sys/bus/pci/devices/0000:3b:00.0',
        reason: 'physical function with 8 VFs enabled; its VFs are offered instead',
      },
      {
        path: '/sys/bus/pci/devices/0000:d8:00.0',
        reason: 'physical function with 8 VFs enabled; its VFs are offered instead',
      },
      {
        path: '/sys/bus/pci/devices/0000:d8:00.7',
        reason:
          'intel.com/intel_sriov_netdevice: vendor 15b3 does not match selector vendors=[8086] | ' +
          'intel.com/intel_sriov_dpdk: vendor 15b3 does not match selector vendors=[8086] | ' +
          'nvidia.com/mlnx_sriov_rdma: VF 5 of ens2f0 does not match selector pfNames=[ens2f0#0-3] | ' +
          'nvidia.com/mlnx_rest: selectors[0]: VF 5 of ens2f0 does not match selector pfNames=[ens2f0#4,6]; ' +
          'selectors[1]: VF 5 of 0000:d8:00.0 does not match selector rootDevices=[0000:d8:00.0#7]',
      },
    ]);
    expect(doc.warnings).toEqual([]);
  });

  it('accepts the same configuration as YAML and warns about keys it does not know', async () => {
    const yaml = [
      'resourceList:',
      '  - resourceName: ddp_pool',
      '    selectors:',
      '      vendors: ["8086"]',
      '      pfname: ["ens1f0"]',
      '  - resourceName: intel_all',
      '    selectors: { vendors: ["8086"], devices: ["154c"] }',
      'logLevel: 10',
    ].join('\n');
    const result = await run([
      'discover',
      '--output',
      'json',
      ...roots(),
      '--config',
      config('c.yaml', yaml),
    ]);
    expect(result.code).toBe(0);
    const doc = JSON.parse(result.stdout) as {
      resources: { resourceName: string; devices: unknown[] }[];
      warnings: string[];
    };
    const file = join(fixture.base, 'c.yaml');
    expect(doc.warnings).toEqual([
      `${file}: resourceList[0].selectors.pfname: unknown key; ignored`,
      `${file}: logLevel: unknown key; ignored`,
      "intel.com/intel_all: no device matches the pool's selectors; not registered (as upstream)",
    ]);
    expect(doc.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([['intel.com/ddp_pool', 8]]);
  });

  it('refuses upstream keys it does not implement with exit 2, naming the field', async () => {
    const file = config(
      'ddp.yaml',
      'resourceList:\n  - resourceName: gtp\n    selectors: { ddpProfiles: ["GTPv1-C/U IPv4/IPv6 payload"] }\n',
    );
    const result = await run(['discover', ...roots(), '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file}: resourceList[0].selectors.ddpProfiles: not supported: the loaded DDP`,
    );
  });

  it('applies --resource-prefix to pools without resourcePrefix and prints a table by default', async () => {
    const file = config(
      'c.json',
      '{"resourceList":[{"resourceName":"vfio","selectors":{"drivers":["vfio-pci"]}}]}',
    );
    const result = await run(['discover', ...roots(), '--config', file, '--resource-prefix', 'example.com']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('example.com/vfio  0000:3b:02.4');
    expect(result.stdout).toContain('EXCLUDED');
  });

  it('without --config advertises nothing and says why for every candidate', async () => {
    const result = await run(['discover', '--output', 'json', ...roots()]);
    const doc = JSON.parse(result.stdout) as { resources: unknown[]; excluded: { reason: string }[] };
    expect(result.code).toBe(0);
    expect(doc.resources).toEqual([]);
    expect(doc.excluded).toHaveLength(19);
    expect(doc.excluded.filter((e) => e.reason.startsWith('no netDevice pool'))).toHaveLength(16);
  });

  it.each([
    [
      'a malformed pfNames range',
      '{"resourceList":[{"resourceName":"x","selectors":{"pfNames":["ens1f0#3-1"]}}]}',
      'resourceList[0].selectors.pfNames[0]: "ens1f0#3-1": range 3-1 ends before it starts',
    ],
    [
      'an invalid resourceName',
      '{"resourceList":[{"resourceName":"a/b"}]}',
      'resourceList[0].resourceName: must hold only letters, digits, "_" and "-" (as upstream requires)',
    ],
    [
      'a wrong type',
      '{"resourceList":[{"resourceName":"x","selectors":{"isRdma":"yes"}}]}',
      'resourceList[0].selectors',
    ],
    [
      'an unknown deviceType',
      '{"resourceList":[{"resourceName":"x","deviceType":"gpu"}]}',
      'resourceList[0].deviceType',
    ],
    ['broken JSON', '{"resourceList": [', 'syntax error'],
  ])('exits 2 for %s, naming the file, the field and the problem', async (_what, text, problem) => {
    const file = config('bad.json', text);
    const result = await run(['serve', ...roots(), '--device-plugin-dir', fixture.base, '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`sriov-device-plugin: ${file}: ${problem}`);
  });

  it.each([
    ['--poll-interval', 'soon', '--poll-interval "soon" is not a duration'],
    ['--poll-interval', '10', '--poll-interval 10 is shorter than 50ms'],
    ['--vanished-grace', 'later', '--vanished-grace "later" is not a duration'],
  ])('exits 2 for %s %s', async (name, value, message) => {
    const result = await run(['serve', ...roots(), '--device-plugin-dir', fixture.base, name, value]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('documents its own flags, --proc-root and the 500ms default of the common --poll-interval in --help', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    for (const text of ['--resource-prefix PREFIX', 'intel.com', '--devinfo-dir DIR', '--vanished-grace']) {
      expect(result.stdout).toContain(text);
    }
    // /proc/net/route decides the default-route exclusion, so the plugin reads procfs.
    expect(result.stdout).toContain('--proc-root DIR');
    expect(result.stdout).toMatch(/--poll-interval DURATION .*\[500ms\]/);
  });
});

describe('sriov-device-plugin serve (in-process)', () => {
  let fixture: SysfsFixture;
  let configFile: string;
  beforeEach(() => {
    fixture = createSysfsFixture();
    addTwoPfNode(fixture);
    fixture.addDevNode('/dev/vhost-net', 10, 238);
    fixture.addDevNode('/dev/net/tun', 10, 200);
    configFile = join(fixture.base, 'config.json');
    writeFileSync(configFile, UPSTREAM_CONFIG);
  });
  afterEach(() => fixture.remove());

  /** A kubelet-sim and `serve` against it; `use` runs while both are up. */
  const serve = async <T>(
    args: readonly string[],
    use: (sim: Awaited<ReturnType<typeof createKubeletSim>>) => Promise<T>,
    registry?: string,
  ): Promise<T> => {
    const dir = mkdtempSync(join(fixture.base, 'dp-'));
    const sim = await createKubeletSim({
      dir,
      ...(registry !== undefined ? { pluginsRegistryDir: registry } : {}),
    });
    const run = startPluginRun(sriovPlugin, [
      'serve',
      ...['--sysfs-root', fixture.root, '--proc-root', fixture.procRoot, '--dev-root', fixture.devRoot],
      ...['--device-plugin-dir', dir, '--config', configFile, '--devinfo-dir', join(fixture.base, 'devinfo')],
      ...args,
    ]);
    try {
      return await use(sim);
    } finally {
      expect(await run.stop()).toBe(0);
      await sim.close();
    }
  };

  /** Devices and mounts in a comparable order. */
  const byPath = <T extends { containerPath: string }>(list: readonly T[]): T[] =>
    [...list].sort((a, b) => (a.containerPath < b.containerPath ? -1 : 1));

  it('--device-list-strategy cdi: Allocate answers CDI names that resolve to what device-specs returns', async () => {
    const cdiDir = join(fixture.base, 'cdi');
    const requests = [
      { resource: 'intel.com/intel_sriov_dpdk', count: 2 },
      { resource: 'nvidia.com/mlnx_sriov_rdma', count: 2 },
      { resource: 'nvidia.com/mlnx_rest', count: 3 },
      { resource: 'intel.com/intel_sriov_netdevice', count: 1 },
    ];
    /** Each request's admission and what its CDI names resolve to in `cdiDir`, read while the plugin runs. */
    const admitAll = (args: readonly string[]) =>
      serve(args, async (sim) => {
        const out: { admission: Admission; resolved: ReturnType<typeof resolveCdiDevices> }[] = [];
        for (const [i, request] of requests.entries()) {
          await sim.until(request.resource, (state) => state.healthy.length >= request.count);
          const admission = await sim.admit({ pod: `p${i}`, container: 'c', ...request });
          const names = admission.response.cdiDevices.map((device) => device.name);
          out.push({ admission, resolved: resolveCdiDevices(cdiDir, names) });
          sim.release(`p${i}`);
        }
        return out;
      });
    mkdirSync(cdiDir);
    const specs = (await admitAll([])).map(({ admission }) => admission);
    const cdi = await admitAll(['--device-list-strategy', 'cdi', '--cdi-dir', cdiDir]);
    for (const [i, request] of requests.entries()) {
      const before = specs[i] as Admission;
      const { admission: after, resolved } = cdi[i] as (typeof cdi)[number];
      expect([request.resource, after.deviceIds]).toEqual([request.resource, before.deviceIds]);
      // CDI alone: no device specs, but the PCIDEVICE_* variables, which no CDI spec can carry per container.
      expect(after.response.devices).toEqual([]);
      expect(after.response.envs).toEqual(before.response.envs);
      expect([request.resource, byPath(resolved.devices)]).toEqual([
        request.resource,
        byPath(before.response.devices),
      ]);
      expect(resolved.mounts).toEqual(before.response.mounts);
    }
    // vfio-pci: the VFIO container node and the group's node; RDMA: its character devices (one spec per pool).
    expect(specs[0]?.response.devices.map((d) => d.hostPath)).toEqual([
      '/dev/vfio/vfio',
      ...(specs[0]?.deviceIds ?? []).map((id) => `/dev/vfio/${100 + Number(id.slice(-1))}`),
    ]);
    const rdma = cdi[1]?.admission;
    expect(rdma?.response.cdiDevices.map((device) => device.name)).toEqual(
      rdma?.deviceIds.map((id) => `k8s.device-plugin.nvidia.com/mlnx_sriov_rdma=${id}`),
    );
    expect(cdi[1]?.resolved.files).toEqual(['kdp-k8s.device-plugin.nvidia.com-mlnx_sriov_rdma_sriov.json']);
    // A kernel-netdevice VF needs no device node: no CDI name, only its variables.
    expect(cdi[3]?.admission.response.cdiDevices).toEqual([]);
    // The specs are gone once the plugin stopped.
    expect(readdirSync(cdiDir)).toEqual([]);
  });

  it('--registration plugin-watcher: registers through the plugin watcher, not kubelet.sock', async () => {
    const registry = join(fixture.base, 'plugins_registry');
    mkdirSync(registry);
    await serve(
      ['--registration', 'plugin-watcher', '--plugins-registry-dir', registry],
      async (sim) => {
        const state = await sim.until('intel.com/intel_sriov_dpdk', (s) => s.healthy.length === 4);
        expect(state.endpoint.startsWith(`${registry}/`)).toBe(true);
        const admission = await sim.admit({
          pod: 'p',
          container: 'c',
          resource: 'intel.com/intel_sriov_dpdk',
          count: 1,
        });
        expect(admission.response.devices).toHaveLength(2);
      },
      registry,
    );
  });
});
