import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@kdp/core';
import { createDeviceInfoStore } from '../allocate/device-info-store';
import { sriovConfigSchema, type SriovPool } from '../config';
import type { NodeScan } from '../scan/nic-function';
import { testVf } from '../testing/test-vf';
import { assignPools } from './assign-pools';
import { poolResources, toPluginDevice } from './pool-resources';

const pool = sriovConfigSchema.parse({ resourceList: [{ resourceName: 'p' }] }).resourceList[0] as SriovPool;

describe('pool resources', () => {
  it('advertise the PCI address, NUMA node (unless excludeTopology), PCIe path, problem and attributes', () => {
    const member = { fn: testVf({ address: '0000:3b:02.0' }), selectorIndex: 0, healthy: true };
    expect(toPluginDevice(pool, member)).toEqual({
      id: '0000:3b:02.0',
      health: 'Healthy',
      numaNodes: [0],
      pciePath: ['0000:3a:00.0'],
      pciAddress: '0000:3b:02.0',
      attributes: {
        vendor: '8086',
        device: '154c',
        driver: 'iavf',
        pfName: 'ens1f0',
        pfAddress: '0000:3b:00.0',
        vfIndex: '1',
        netdev: 'ens1f0v1',
        linkType: 'ether',
        iommuGroup: '101',
      },
      payload: member,
    });
    expect(toPluginDevice({ ...pool, excludeTopology: true }, member).numaNodes).toEqual([]);
    const down = { ...member, healthy: false, problem: 'PF ens1f0 has no carrier' };
    expect(toPluginDevice(pool, down)).toMatchObject({
      health: 'Unhealthy',
      problem: 'PF ens1f0 has no carrier',
    });
  });

  describe('poolResources', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sriov-pools-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const config = sriovConfigSchema.parse({
      resourceList: [
        { resourceName: 'rdma', selectors: { drivers: ['mlx5_core'], isRdma: true } },
        { resourceName: 'kernel', selectors: { drivers: ['iavf'] }, pfAllocation: 'spread' },
        { resourceName: 'empty', selectors: { drivers: ['nothing'] } },
      ],
    });
    const node: NodeScan = {
      functions: [
        testVf({ address: '0000:3b:02.0', vf: { pfAddress: '0000:3b:00.0', index: 0 } }),
        testVf({ address: '0000:3b:02.1', vf: { pfAddress: '0000:3b:00.0', index: 1 } }),
        testVf({ address: '0000:3c:02.0', vf: { pfAddress: '0000:3c:00.0', index: 0 } }),
        testVf({ address: '0000:d8:00.2', driver: 'mlx5_core', rdmaDevices: ['mlx5_2'], numaNode: 1 }),
      ],
      skipped: [],
      skippedFunctions: [],
      uevents: false,
      rdmaCharDevices: new Map([['mlx5_2', ['/dev/infiniband/uverbs2', '/dev/infiniband/rdma_cm']]]),
      warnings: ['0000:3b:00.0: numa_node is not a number ("x"); topology unknown'],
    };
    const build = () => {
      const store = createDeviceInfoStore(dir);
      const assignment = assignPools(node, config, { defaultPrefix: 'intel.com' });
      const set = poolResources({ node, assignment }, config, {
        defaultPrefix: 'intel.com',
        vhostNet: async () => false,
        store,
        logger: silentLogger,
      });
      return { set, store };
    };
    const signal = new AbortController().signal;

    it('give one resource per pool, empty ones skipped (as upstream)', () => {
      const { set } = build();
      expect(set.resources.map((r) => [r.name, r.devices.map((d) => d.id)])).toEqual([
        ['intel.com/rdma', ['0000:d8:00.2']],
        ['intel.com/kernel', ['0000:3b:02.0', '0000:3b:02.1', '0000:3c:02.0']],
      ]);
      expect(set.warnings).toEqual([
        '0000:3b:00.0: numa_node is not a number ("x"); topology unknown',
        "intel.com/empty: no device matches the pool's selectors; not registered (as upstream)",
      ]);
      expect(set.excluded).toEqual([]);
    });

    it('answer Allocate as upstream and leave the device-info file of each device after it', async () => {
      const { set, store } = build();
      const rdma = set.resources[0];
      const context = { resource: 'intel.com/rdma', devices: rdma?.devices ?? [], containerIndex: 0, signal };
      const allocation = await rdma?.allocate?.(context);
      expect(allocation?.devices?.map((d) => d.hostPath)).toEqual([
        '/dev/infiniband/uverbs2',
        '/dev/infiniband/rdma_cm',
      ]);
      expect(allocation?.envs?.['PCIDEVICE_INTEL_COM_RDMA']).toBe('0000:d8:00.2');
      expect(readdirSync(dir)).toEqual([]);
      await rdma?.afterAllocate?.(context, allocation ?? {});
      expect(readFileSync(join(dir, 'intel.com-rdma-0000:d8:00.2-device.json'), 'utf8')).toBe(
        '{"type":"pci","version":"1.1.0","pci":{"pci-address":"0000:d8:00.2","rdma-device":"mlx5_2"}}',
      );
      await store.removeAll();
      expect(readdirSync(dir)).toEqual([]);
    });

    it('prefer VFs as the pool says: spread over PFs', async () => {
      const kernel = build().set.resources[1];
      const preferred = await kernel?.preferredAllocation?.({
        resource: 'intel.com/kernel',
        available: kernel.devices,
        mustInclude: [],
        size: 2,
      });
      expect(preferred).toEqual(['0000:3b:02.0', '0000:3c:02.0']);
    });
  });
});
