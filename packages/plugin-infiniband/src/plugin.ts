import { definePlugin } from '@kdp/core/plugin';
import { readNumaTopology } from '@kdp/topology';
import packageJson from '../package.json';
import { rdmaConfigSchema } from './config';
import { planResources } from './resources/plan-resources';
import { readRdmaInventory } from './scan/read-rdma-inventory';

/**
 * `infiniband-device-plugin`: one resource per configured entry (k8s-rdma-shared-dev-plugin's format; without a
 * configuration one exclusive `rdma/hca` with a device per RDMA device), rescanned on every change under /dev
 * and the RDMA classes and at least every --poll-interval, so a port going down or up reaches the kubelet.
 */
export const infinibandPlugin = definePlugin({
  name: 'infiniband',
  binary: 'infiniband-device-plugin',
  title: 'InfiniBand / RoCE / Omni-Path RDMA device plugin',
  version: packageJson.version,
  // The format is k8s-rdma-shared-dev-plugin's: keys it may grow are reported, not fatal.
  config: { schema: rdmaConfigSchema, unknownKeys: 'warn' },
  // The NUMA layout does not change while the process runs: read once, for the local_cpulist fallback and distances.
  setup: ({ host }) => readNumaTopology(host.sysfs),
  scan: {
    watch: () => ({ devfs: ['/dev/infiniband'], sysfs: ['class/infiniband'] }),
    run: ({ host, state }) => readRdmaInventory({ host, numa: state }),
  },
  resources: (inventory, { config, state }) =>
    planResources(config, inventory, { distances: state.distances }),
});
