import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand, startPluginRun } from '@kdp/core/testing';
import { createKubeletSim } from '@kdp/kubelet-sim';
import { createSysfsFixture, type SysfsFixture } from '@kdp/topology/testing';
import { sriovPlugin } from '../plugin';
import { addDefaultRouteNic, addSriovPf } from '../testing/sriov-node';
import { sriovNetworkDevicePluginCompat } from './sriov-network-device-plugin';

// Upstream's published examples, re-typed: deployments/configMap.yaml (config.json), the DaemonSet args of
// deployments/sriovdp-daemonset.yaml and deployments/cdi/, and the SR-IOV Network Operator's generated DaemonSet
// (bindata/manifests/plugins/sriov-device-plugin.yaml: one config per node under /etc/pcidp/$(NODE_NAME)).
const UPSTREAM_CONFIG_MAP = `{
    "resourceList": [{
            "resourceName": "intel_sriov_netdevice",
            "selectors": {
                "vendors": ["8086"],
                "devices": ["154c", "10ed", "1889"],
                "drivers": ["i40evf", "iavf", "ixgbevf"]
            }
        },
        {
            "resourceName": "intel_sriov_dpdk",
            "selectors": {
                "vendors": ["8086"],
                "devices": ["154c", "10ed", "1889"],
                "drivers": ["vfio-pci"],
                "pfNames": ["enp0s0f0","enp2s2f1"]
            }
        },
        {
            "resourceName": "mlnx_sriov_rdma",
            "selectors": {
                "vendors": ["15b3"],
                "devices": ["1018"],
                "drivers": ["mlx5_ib"],
                "isRdma": true
            }
        },
        {
            "resourceName": "brcm_sriov_bnxt",
            "selectors": {
                "vendors": ["14e4"],
                "devices": ["1750"],
                "drivers": ["bnxt_en"]
            }
        }
    ]
}`;

// The README's RDMA and pKey pools (docs/rdma/configMap.yaml, the pKeys row of the selector table).
const README_RDMA_CONFIG = `{
  "resourceList": [
    {
      "resourcePrefix": "mellanox.com",
      "resourceName": "mlnx_rdma",
      "selectors": { "vendors": ["15b3"], "devices": ["1018"], "drivers": ["mlx5_core"], "isRdma": true }
    },
    {
      "resourceName": "ib_pkey",
      "selectors": { "linkTypes": ["infiniband"], "pKeys": ["0x1", "0xABCD", "0x50"] }
    }
  ]
}`;

describe('drop-in for sriov-network-device-plugin (published examples)', () => {
  const plugin = { ...sriovPlugin, compat: [sriovNetworkDevicePluginCompat] };
  let fixture: SysfsFixture;
  const roots = (): string[] => [
    ...['--sysfs-root', fixture.root, '--proc-root', fixture.procRoot, '--dev-root', fixture.devRoot],
  ];
  /** Writes a file under the fixture's anchor root (where upstream's absolute paths are looked up). */
  const anchorFile = (path: string, text: string): string => {
    const file = join(fixture.base, 'anchor', path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  const discover = async (argv: readonly string[]) => {
    const result = await runPluginCommand(plugin, ['discover', '--output', 'json', ...roots(), ...argv], {
      anchorRoot: join(fixture.base, 'anchor'),
    });
    expect([result.code, result.stderr.split('\n').filter((l) => l.includes('"level":50'))]).toEqual([0, []]);
    return JSON.parse(result.stdout) as DiscoverDocument & { config: unknown };
  };
  const ids = (doc: DiscoverDocument) =>
    doc.resources.map((r) => [r.resourceName, r.devices.map((d) => d.id)]);

  beforeEach(() => {
    fixture = createSysfsFixture();
    // An X710 whose PF is enp2s2f1 (the example's pfNames), VFs 0-3 on iavf and 4-7 on vfio-pci; a BCM57414 with
    // bnxt_en VFs; a ConnectX-5 with RDMA VFs (driver link mlx5_core, as on every real host); the management NIC.
    addSriovPf(fixture, {
      address: '0000:3b:00.0',
      ...{ vendor: '8086', device: '1572', vfDevice: '154c', driver: 'i40e', netdev: 'enp2s2f1' },
      ...{ numaNode: 0, totalVfs: 64, rootPort: '0000:3a:00.0', offsetStride: [16, 1] },
      vfs: Array.from({ length: 8 }, (_, i) => ({
        address: `0000:3b:02.${i}`,
        iommuGroup: 100 + i,
        ...(i < 4 ? { driver: 'iavf', netdev: `enp2s2f1v${i}` } : { driver: 'vfio-pci' }),
      })),
    });
    addSriovPf(fixture, {
      address: '0000:5e:00.0',
      ...{ vendor: '14e4', device: '16d7', vfDevice: '1750', driver: 'bnxt_en', netdev: 'ens3f0' },
      ...{ numaNode: 0, totalVfs: 16, rootPort: '0000:5d:00.0' },
      vfs: [0, 1].map((i) => ({
        address: `0000:5e:00.${i + 1}`,
        iommuGroup: 150 + i,
        driver: 'bnxt_en',
        netdev: `ens3f0v${i}`,
      })),
    });
    addSriovPf(fixture, {
      address: '0000:d8:00.0',
      ...{ vendor: '15b3', device: '1017', vfDevice: '1018', driver: 'mlx5_core', netdev: 'ens2f0' },
      ...{ numaNode: 1, totalVfs: 16, rootPort: '0000:d7:00.0' },
      vfs: [0, 1].map((i) => ({
        address: `0000:d8:00.${i + 2}`,
        iommuGroup: 200 + i,
        driver: 'mlx5_core',
        netdev: `ens2f0v${i}`,
        rdma: `mlx5_${i + 2}`,
      })),
    });
    addDefaultRouteNic(fixture);
  });
  afterEach(() => fixture.remove());

  it("reads deployments/configMap.yaml from upstream's default /etc/pcidp/config.json", async () => {
    anchorFile('etc/pcidp/config.json', UPSTREAM_CONFIG_MAP);
    const doc = await discover([]);
    expect(ids(doc)).toEqual([
      ['intel.com/intel_sriov_netdevice', ['0000:3b:02.0', '0000:3b:02.1', '0000:3b:02.2', '0000:3b:02.3']],
      ['intel.com/intel_sriov_dpdk', ['0000:3b:02.4', '0000:3b:02.5', '0000:3b:02.6', '0000:3b:02.7']],
      ['intel.com/brcm_sriov_bnxt', ['0000:5e:00.1', '0000:5e:00.2']],
    ]);
    // The example's drivers: ["mlx5_ib"] matches no ConnectX function (their driver link is mlx5_core): the pool
    // is empty, and upstream creates no resource server for it ("no devices in device pool, skipping").
    expect(doc.warnings).toContain(
      "intel.com/mlnx_sriov_rdma: no device matches the pool's selectors; not registered (as upstream)",
    );
    const dpdk = doc.resources[1]?.devices[0];
    expect(dpdk?.envs).toEqual({
      PCIDEVICE_INTEL_COM_INTEL_SRIOV_DPDK: '0000:3b:02.4',
      PCIDEVICE_INTEL_COM_INTEL_SRIOV_DPDK_INFO:
        '{"0000:3b:02.4":{"generic":{"deviceID":"0000:3b:02.4"},"vfio":{"dev-mount":"/dev/vfio/104","mount":"/dev/vfio/vfio"}}}',
    });
    expect(dpdk?.deviceSpecs?.map((s) => s.hostPath)).toEqual(['/dev/vfio/vfio', '/dev/vfio/104']);
    expect(doc.config).toMatchObject({
      resourceList: [{ resourceName: 'intel_sriov_netdevice' }, {}, {}, {}],
    });
  });

  it('exits 2 on a duplicate pool, with upstream\'s "resource name … already exists"', async () => {
    const pools = (JSON.parse(UPSTREAM_CONFIG_MAP) as { resourceList: unknown[] }).resourceList;
    const file = anchorFile('etc/pcidp/config.json', JSON.stringify({ resourceList: [...pools, pools[0]] }));
    const dir = join(fixture.base, 'device-plugins');
    mkdirSync(dir);
    for (const command of ['discover', 'serve']) {
      const serveDir = command === 'serve' ? ['--device-plugin-dir', dir] : [];
      const result = await runPluginCommand(plugin, [command, ...roots(), ...serveDir], {
        anchorRoot: join(fixture.base, 'anchor'),
      });
      expect([command, result.code, result.stderr]).toEqual([
        command,
        2,
        expect.stringContaining(
          `${file}: resourceList[4].resourceName: resource name "<--resource-prefix>/intel_sriov_netdevice" already exists (resourceList[0])`,
        ),
      ]);
    }
  });

  it("runs the SR-IOV Network Operator's args: --log-level=10 --resource-prefix --config-file", async () => {
    const file = anchorFile('etc/pcidp/worker-1', UPSTREAM_CONFIG_MAP);
    const doc = await discover(['--log-level=10', '--resource-prefix=openshift.io', `--config-file=${file}`]);
    expect(doc.resources.map((r) => r.resourceName)).toEqual([
      'openshift.io/intel_sriov_netdevice',
      'openshift.io/intel_sriov_dpdk',
      'openshift.io/brcm_sriov_bnxt',
    ]);
    expect(Object.keys(doc.resources[0]?.devices[0]?.envs ?? {})).toEqual([
      'PCIDEVICE_OPENSHIFT_IO_INTEL_SRIOV_NETDEVICE',
      'PCIDEVICE_OPENSHIFT_IO_INTEL_SRIOV_NETDEVICE_INFO',
    ]);
  });

  it("selects RDMA VFs and InfiniBand partition keys as the README's pools do", async () => {
    addSriovPf(fixture, {
      address: '0000:af:00.0',
      ...{ vendor: '15b3', device: '101b', vfDevice: '101c', driver: 'mlx5_core', netdev: 'ib0' },
      ...{ numaNode: 1, totalVfs: 8, rootPort: '0000:ae:00.0', linkType: 32 },
      vfs: ['0x0001', '0x7fff'].map((pKey, i) => ({
        address: `0000:af:00.${i + 1}`,
        iommuGroup: 300 + i,
        driver: 'mlx5_core',
        rdma: `mlx5_${i + 10}`,
        pKey,
      })),
    });
    const doc = await discover(['-config-file', anchorFile('rdma.json', README_RDMA_CONFIG)]);
    // The first pool takes the ConnectX-5 VFs (device 1018); of the ConnectX-6 ones only 0x0001 is in pKeys.
    expect(ids(doc)).toEqual([
      ['mellanox.com/mlnx_rdma', ['0000:d8:00.2', '0000:d8:00.3']],
      ['intel.com/ib_pkey', ['0000:af:00.1']],
    ]);
    expect(
      JSON.parse(doc.resources[0]?.devices[0]?.envs?.['PCIDEVICE_MELLANOX_COM_MLNX_RDMA_INFO'] ?? ''),
    ).toEqual({
      '0000:d8:00.2': {
        generic: { deviceID: '0000:d8:00.2' },
        rdma: {
          issm: '/dev/infiniband/issm2',
          rdma_cm: '/dev/infiniband/rdma_cm',
          rdma_dev: 'mlx5_2',
          umad: '/dev/infiniband/umad2',
          uverbs: '/dev/infiniband/uverbs2',
        },
      },
    });
  });

  it('refuses the selectors it does not implement with exit 2 naming the field and the way out', async () => {
    const file = anchorFile(
      'vdpa.json',
      '{"resourceList":[{"resourceName":"vdpa_mlx_vhost","selectors":{"vendors":["15b3"],"vdpaType":"vhost"}}]}',
    );
    const result = await runPluginCommand(plugin, ['discover', ...roots(), `--config-file=${file}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}: resourceList[0].selectors.vdpaType: not supported`);
  });

  it('serves the DaemonSet args (no command) and answers Allocate with upstream env and device-info file', async () => {
    anchorFile('etc/pcidp/config.json', UPSTREAM_CONFIG_MAP);
    const dir = join(fixture.base, 'device-plugins');
    mkdirSync(dir);
    const devinfo = join(fixture.base, 'devinfo');
    const cdiDir = join(fixture.base, 'cdi');
    mkdirSync(cdiDir);
    const sim = await createKubeletSim({ dir });
    // deployments/cdi/sriovdp-daemonset.yaml's args, with the fixture's roots and directories.
    const run = startPluginRun(
      plugin,
      [
        ...['--log-level=10', '--use-cdi', ...roots()],
        ...['--device-plugin-dir', dir, '--devinfo-dir', devinfo, '--cdi-dir', cdiDir],
      ],
      { anchorRoot: join(fixture.base, 'anchor') },
    );
    try {
      const resource = 'intel.com/intel_sriov_dpdk';
      await sim.until(resource, (state) => state.healthy.length === 4);
      const admission = await sim.admit({ pod: 'p', container: 'c', resource, count: 1 });
      const [id] = admission.deviceIds;
      expect(admission.response.envs['PCIDEVICE_INTEL_COM_INTEL_SRIOV_DPDK']).toBe(id);
      // --use-cdi: CDI names instead of device specs, as upstream.
      expect(admission.response.devices).toEqual([]);
      expect(admission.response.cdiDevices.map((d) => d.name)).toEqual([
        `k8s.device-plugin.${resource}=${id}`,
      ]);
      // And as upstream's annotation (its AnnotationKey(prefix, "net-pci"), the names comma-separated), which
      // runtimes without the CRI field (containerd < 1.7, CRI-O < 1.28) read.
      expect(admission.response.annotations).toEqual({
        'cdi.k8s.io/intel.com_net-pci': `k8s.device-plugin.${resource}=${id}`,
      });
      expect(
        JSON.parse(readFileSync(join(devinfo, `intel.com-intel_sriov_dpdk-${id}-device.json`), 'utf8')),
      ).toEqual({ type: 'pci', version: '1.1.0', pci: { 'pci-address': id } });
      expect(readdirSync(cdiDir)).toEqual(['kdp-k8s.device-plugin.intel.com-intel_sriov_dpdk_sriov.json']);
    } finally {
      expect(await run.stop()).toBe(0);
      await sim.close();
    }
  });
});
