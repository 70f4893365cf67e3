import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DiscoverDocument } from '@kdp/core/plugin';
import { runPluginCommand } from '@kdp/core/testing';
import type { SysfsFixture } from '@kdp/topology/testing';
import { infinibandPlugin } from './plugin';
import { rdmaChangeProbe } from './scan/rdma-change-probe';
import { createRdmaMachine, setPortState, UPSTREAM_CONFIG_JSON } from './testing/rdma-machine';

describe('infiniband-device-plugin (in-process)', () => {
  let fixture: SysfsFixture;
  const run = (...argv: string[]) =>
    runPluginCommand(infinibandPlugin, [
      ...argv,
      '--sysfs-root',
      fixture.root,
      '--dev-root',
      fixture.devRoot,
    ]);
  const discoverJson = async (...argv: string[]): Promise<DiscoverDocument> => {
    const result = await run('discover', '--output', 'json', ...argv);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as DiscoverDocument;
  };

  beforeEach(() => {
    fixture = createRdmaMachine();
  });
  afterEach(() => fixture.remove());

  it('discover without --config lists each HCA of rdma/hca with ports, char devices and NUMA node', async () => {
    setPortState(fixture, 'mlx4_0', 2, '1: DOWN', '3: Disabled');
    const doc = await discoverJson();
    expect(doc.resources.map((r) => r.resourceName)).toEqual(['rdma/hca']);
    const devices = doc.resources[0]?.devices ?? [];
    expect(devices.map((d) => d.id)).toEqual([
      '0000:5e:00.0',
      '0000:af:00.0',
      '0000:3b:00.0',
      '0000:d8:00.0',
    ]);
    const mlx4 = devices[2];
    expect(mlx4).toEqual({
      id: '0000:3b:00.0',
      health: 'Healthy',
      numaNodes: [0],
      pciAddress: '0000:3b:00.0',
      deviceSpecs: ['uverbs0', 'umad0', 'issm0', 'umad1', 'issm1', 'rdma_cm'].map((name) => ({
        containerPath: `/dev/infiniband/${name}`,
        hostPath: `/dev/infiniband/${name}`,
        permissions: 'rw',
      })),
      mounts: [],
      envs: {},
      attributes: {
        ibdev: 'mlx4_0',
        vendor: '0x15b3',
        device: '0x1007',
        driver: 'mlx4_core',
        nodeGuid: 'e41d:2d03:0060:7a10',
        fwVer: '2.42.5000',
        netdevs: 'ib0,ib1',
        charDevices: 'uverbs0,umad0,issm0,umad1,issm1',
        port1: 'ACTIVE LinkUp InfiniBand 56 Gb/sec (4X FDR)',
        port2: 'DOWN Disabled InfiniBand 56 Gb/sec (4X FDR)',
      },
    });
    expect(devices[0]?.attributes).toMatchObject({
      ibdev: 'hfi1_0',
      driver: 'hfi1',
      port1: expect.stringContaining('InfiniBand'),
    });
    expect(devices[0]?.deviceSpecs.map((s) => s.hostPath)).toContain('/dev/hfi1_0');
    expect(devices[1]?.attributes).toMatchObject({
      ibdev: 'irdma0',
      charDevices: 'uverbs3,umad4',
      port1: 'ACTIVE LinkUp Ethernet 25 Gb/sec (1X EDR)',
    });
    expect(devices[3]).toMatchObject({
      numaNodes: [1],
      attributes: { ibdev: 'mlx5_0', netdevs: 'ens6f0np0' },
    });
    expect(doc.excluded).toEqual([
      {
        path: '/sys/class/infiniband/bnxt_re0',
        reason: 'no uverbs character device in /sys/class/infiniband_verbs (is ib_uverbs loaded?)',
      },
    ]);
    expect(doc.warnings).toEqual([]);
  });

  it('discover with a k8s-rdma-shared-dev-plugin config, unchanged, as YAML and as JSON', async () => {
    const jsonFile = join(fixture.base, 'config.json');
    writeFileSync(jsonFile, UPSTREAM_CONFIG_JSON);
    const yamlFile = join(fixture.base, 'config.yaml');
    writeFileSync(
      yamlFile,
      [
        'periodicUpdateInterval: 300',
        'configList:',
        '  - resourceName: hca_shared_devices_a',
        '    rdmaHcaMax: 1000',
        '    selectors: { vendors: ["15b3"], deviceIDs: ["1017"] }',
        '  - resourceName: hca_shared_devices_b',
        '    rdmaHcaMax: 500',
        '    selectors: { vendors: ["15b3"], deviceIDs: ["1017"], ifNames: [ib0, ib1] }',
      ].join('\n'),
    );
    const fromJson = await discoverJson('--config', jsonFile);
    const fromYaml = await discoverJson('--config', yamlFile);
    expect(fromYaml).toEqual(fromJson);
    expect(fromJson.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([
      ['rdma/hca_shared_devices_a', 1000],
      ['rdma/hca_shared_devices_b', 0],
    ]);
    expect(fromJson.resources[0]?.devices[7]).toEqual({
      id: '7',
      health: 'Healthy',
      numaNodes: [1],
      pciAddress: null,
      deviceSpecs: ['uverbs1', 'umad2', 'issm2', 'rdma_cm'].map((name) => ({
        containerPath: `/dev/infiniband/${name}`,
        hostPath: `/dev/infiniband/${name}`,
        permissions: 'rwm',
      })),
      mounts: [],
      envs: {},
      attributes: {
        hcas: 'mlx5_0',
        'mlx5_0.ibdev': 'mlx5_0',
        'mlx5_0.vendor': '0x15b3',
        'mlx5_0.device': '0x1017',
        'mlx5_0.driver': 'mlx5_core',
        'mlx5_0.nodeGuid': 'b83f:d203:00a1:5c2e',
        'mlx5_0.fwVer': '22.36.1010',
        'mlx5_0.netdevs': 'ens6f0np0',
        'mlx5_0.charDevices': 'uverbs1,umad2,issm2',
        'mlx5_0.port1': 'ACTIVE LinkUp Ethernet 100 Gb/sec (2X HDR)',
      },
    });
    expect(fromJson.excluded.map((e) => e.path)).toEqual([
      '/sys/class/infiniband/bnxt_re0',
      '/sys/class/infiniband/hfi1_0',
      '/sys/class/infiniband/irdma0',
      '/sys/class/infiniband/mlx4_0',
    ]);
  });

  it('discover --output table prints one row per device', async () => {
    const result = await run('discover');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('rdma/hca');
    expect(result.stdout).toContain('0000:3b:00.0');
    expect(result.stdout).toContain('/sys/class/infiniband/bnxt_re0');
  });

  it('takes exactly the flags that act: no --proc-root (procfs is never read), no serve flags on discover', async () => {
    const help = await run('--help');
    expect(help.stdout).toContain('--device-list-strategy');
    expect(help.stdout).toContain('--registration');
    expect(help.stdout).not.toContain('--proc-root');
    for (const flags of [
      ['discover', '--proc-root', fixture.procRoot],
      ['serve', '--proc-root', fixture.procRoot, '--device-plugin-dir', fixture.base],
      ['discover', '--cdi-dir', fixture.base],
      ['discover', '--device-plugin-dir', fixture.base],
      ['discover', '--metrics-address', '127.0.0.1:0'],
    ]) {
      const result = await run(...flags);
      expect([flags.join(' '), result.code]).toEqual([flags.join(' '), 2]);
    }
  });

  it('probes every 500 ms between scans and watches only /dev/infiniband (sysfs never raises inotify)', () => {
    expect(infinibandPlugin.reads?.procfs).toBeUndefined();
    expect(infinibandPlugin.scan.interval).toBe('500ms');
    const ctx = {} as Parameters<NonNullable<typeof infinibandPlugin.scan.watch>>[0];
    expect(infinibandPlugin.scan.watch?.(ctx)).toEqual({ devfs: ['/dev/infiniband'] });
    expect(infinibandPlugin.scan.probe).toBe(rdmaChangeProbe);
  });

  it.each([
    ['{"configList":[{"resourceName":"a-b","rdmaHcaMax":3}]}', 'configList[0].resourceName: '],
    ['{"configList":[{"resourceName":"a"}]}', 'configList[0].rdmaHcaMax: required in shared mode'],
    ['{"periodicUpdateInterval":-5}', 'periodicUpdateInterval: '],
    ['{"configList": [', ''],
  ])('a bad config %s stops serve with exit 2 naming file, field and problem', async (text, problem) => {
    const file = join(fixture.base, 'bad.json');
    writeFileSync(file, text);
    const result = await run('serve', '--config', file, '--device-plugin-dir', fixture.base);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`infiniband-device-plugin: ${file}: ${problem}`);
    expect(result.stdout).toBe('');
  });
});
