import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand, startPluginRun } from '@kdp/core/testing';
import { createKubeletSim } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import packageJson from '../../package.json';
import { infinibandPlugin } from '../plugin';
import { addRdmaDevice, createRdmaMachine } from '../testing/rdma-machine';
import { k8sRdmaSharedDevPluginCompat } from './k8s-rdma-shared-dev-plugin';

// Upstream's published examples, re-typed: deployment/k8s/base/configmap.yaml (config.json, mounted at
// /k8s-rdma-shared-dev-plugin by deployment/k8s/base/daemonset.yaml, which passes no args) and the README's
// configuration section (the same with a resourcePrefix of its own).
const DEPLOYMENT_CONFIG_MAP = `{
    "periodicUpdateInterval": 300,
    "configList": [{
         "resourceName": "hca_shared_devices_a",
         "rdmaHcaMax": 1000,
         "devices": ["ib0", "ib1"]
       },
       {
         "resourceName": "hca_shared_devices_b",
         "rdmaHcaMax": 500,
         "selectors": {
           "vendors": ["15b3"],
           "deviceIDs": ["1017"],
           "ifNames": ["ib3", "ib4"]
         }
       }
    ]
}`;

const README_CONFIG = DEPLOYMENT_CONFIG_MAP.replace(
  '"rdmaHcaMax": 1000,',
  '"resourcePrefix": "example_prefix",\n         "rdmaHcaMax": 1000,',
);

/** Upstream's Allocate answer: every character device of the matched HCAs, container path = host path, `rwm`. */
const specs = (names: readonly string[]) =>
  names.map((name) => ({
    containerPath: `/dev/infiniband/${name}`,
    hostPath: `/dev/infiniband/${name}`,
    permissions: 'rwm',
  }));

describe('drop-in for k8s-rdma-shared-dev-plugin (published examples)', () => {
  const plugin = { ...infinibandPlugin, compat: [k8sRdmaSharedDevPluginCompat] };
  let fixture: SysfsFixture;
  const anchorRoot = (): string => join(fixture.base, 'anchor');
  const roots = (): string[] => ['--sysfs-root', fixture.root, '--dev-root', fixture.devRoot];
  const writeAnchor = (path: string, text: string): string => {
    const file = join(anchorRoot(), path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  const discover = async (argv: readonly string[]) => {
    const result = await runPluginCommand(plugin, ['discover', '--output', 'json', ...roots(), ...argv], {
      anchorRoot: anchorRoot(),
    });
    expect([result.code, result.code === 0 ? '' : result.stderr]).toEqual([0, '']);
    return JSON.parse(result.stdout) as DiscoverDocument & { config: unknown };
  };

  beforeEach(() => {
    // The mixed RDMA machine (its ConnectX-3 has ib0 and ib1) plus an InfiniBand ConnectX-5 (15b3:1017) on ib3.
    fixture = createRdmaMachine();
    addRdmaDevice(fixture, {
      name: 'mlx5_3',
      pci: {
        address: '0000:86:00.1',
        vendor: '0x15b3',
        device: '0x1017',
        class: '0x020700',
        driver: 'mlx5_core',
        numaNode: 1,
      },
      ports: [{ rate: '100 Gb/sec (4X EDR)' }],
      uverbs: 5,
      umad: [6],
      netdevs: ['ib3'],
    });
  });
  afterEach(() => fixture.remove());

  it("reads deployment/k8s/base/configmap.yaml from upstream's default path: same names, IDs and specs", async () => {
    writeAnchor('k8s-rdma-shared-dev-plugin/config.json', DEPLOYMENT_CONFIG_MAP);
    const doc = await discover([]);
    expect(doc.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([
      ['rdma/hca_shared_devices_a', 1000],
      ['rdma/hca_shared_devices_b', 500],
    ]);
    const [a, b] = doc.resources;
    // The shared IDs "0" … "rdmaHcaMax-1", as upstream (kubelet checkpoints stay valid across the switch).
    expect(a?.devices.map((d) => d.id)).toEqual(Array.from({ length: 1000 }, (_, i) => String(i)));
    // The deprecated `devices` list (ib0, ib1) selects the ConnectX-3; selectors select the ConnectX-5 on ib3.
    expect(a?.devices[999]?.deviceSpecs).toEqual(
      specs(['uverbs0', 'umad0', 'issm0', 'umad1', 'issm1', 'rdma_cm']),
    );
    expect(b?.devices[0]?.deviceSpecs).toEqual(specs(['uverbs5', 'umad6', 'issm6', 'rdma_cm']));
    // No environment variables and no mounts, as upstream.
    expect([a?.devices[0]?.envs, a?.devices[0]?.mounts]).toEqual([{}, []]);
    expect(doc.config).toMatchObject({ periodicUpdateInterval: 300 });
  });

  it("takes upstream's -config-file, and refuses the README's prefix that no kubelet accepts", async () => {
    const good = writeAnchor('etc/rdma/config.json', DEPLOYMENT_CONFIG_MAP);
    const doc = await discover(['-config-file', good]);
    expect(doc.resources.map((r) => r.resourceName)).toEqual([
      'rdma/hca_shared_devices_a',
      'rdma/hca_shared_devices_b',
    ]);
    // "example_prefix" is no DNS-1123 subdomain: upstream starts, and the kubelet refuses its registration.
    const file = writeAnchor('etc/rdma/readme.json', README_CONFIG);
    const result = await runPluginCommand(plugin, ['discover', ...roots(), `-config-file=${file}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file}: configList[0].resourcePrefix: the ResourceName "example_prefix/hca_shared_devices_a" is invalid`,
    );
  });

  it('prints the version for -v and -version, as upstream', async () => {
    for (const flag of ['-v', '-version']) {
      const result = await runPluginCommand(plugin, [flag]);
      expect([flag, result.code, result.stdout]).toEqual([
        flag,
        0,
        expect.stringContaining(packageJson.version),
      ]);
    }
  });

  it('serves the upstream DaemonSet (config at the default path) and answers Allocate as upstream', async () => {
    writeAnchor('k8s-rdma-shared-dev-plugin/config.json', DEPLOYMENT_CONFIG_MAP);
    const dir = join(fixture.base, 'device-plugins');
    mkdirSync(dir);
    const sim = await createKubeletSim({ dir });
    const run = startPluginRun(plugin, ['serve', ...roots(), '--device-plugin-dir', dir], {
      anchorRoot: anchorRoot(),
    });
    try {
      const resource = 'rdma/hca_shared_devices_a';
      await sim.until(resource, (state) => state.healthy.length === 1000);
      const first = await sim.admit({ pod: 'p1', container: 'c', resource, count: 1 });
      const second = await sim.admit({ pod: 'p2', container: 'c', resource, count: 1 });
      // Two pods share the same HCA: each gets every character device of it, nothing else.
      for (const admission of [first, second]) {
        expect(admission.response.devices).toEqual(
          specs(['uverbs0', 'umad0', 'issm0', 'umad1', 'issm1', 'rdma_cm']),
        );
        expect([admission.response.envs, admission.response.mounts]).toEqual([{}, []]);
      }
      expect(second.deviceIds).not.toEqual(first.deviceIds);
    } finally {
      expect(await run.stop()).toBe(0);
      await sim.close();
    }
  });

  it('hands devices over with -use-cdi as upstream: the CDI names under cdi.k8s.io/nvidia.com_net-rdma', async () => {
    writeAnchor('k8s-rdma-shared-dev-plugin/config.json', DEPLOYMENT_CONFIG_MAP);
    const dir = join(fixture.base, 'device-plugins');
    const cdiDir = join(fixture.base, 'cdi');
    mkdirSync(dir);
    mkdirSync(cdiDir);
    const sim = await createKubeletSim({ dir });
    // The DaemonSet's args with -use-cdi (its README's CDI section), the fixture's roots and directories.
    const run = startPluginRun(
      plugin,
      ['-use-cdi', ...roots(), '--device-plugin-dir', dir, '--cdi-dir', cdiDir],
      { anchorRoot: anchorRoot() },
    );
    try {
      const resource = 'rdma/hca_shared_devices_a';
      await sim.until(resource, (state) => state.healthy.length === 1000);
      const { response } = await sim.admit({ pod: 'p1', container: 'c', resource, count: 1 });
      const names = response.cdiDevices.map((d) => d.name);
      expect(names).toHaveLength(1);
      // Upstream's key (its AnnotationKey("nvidia.com", "net-rdma")) and value (the names, comma-separated),
      // for runtimes that read CDI annotations only; the CRI field as well.
      expect(response.annotations).toEqual({ 'cdi.k8s.io/nvidia.com_net-rdma': names.join(',') });
      expect(response.devices).toEqual([]);
    } finally {
      expect(await run.stop()).toBe(0);
      await sim.close();
    }
  });
});
