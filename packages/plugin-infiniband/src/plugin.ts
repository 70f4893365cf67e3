import { definePlugin } from '@kdp/core/plugin';
import { readNumaTopology } from '@kdp/topology';
import packageJson from '../package.json';
import { rdmaConfigSchema } from './config';
import { planResources } from './resources/plan-resources';
import { rdmaChangeProbe } from './scan/rdma-change-probe';
import { readRdmaInventory } from './scan/read-rdma-inventory';

/**
 * `infiniband-device-plugin`: one resource per configured entry (k8s-rdma-shared-dev-plugin's format; without a
 * configuration one exclusive `rdma/hca` with a device per RDMA device). A change under /dev/infiniband rescans at
 * once; every --poll-interval (500 ms) a cheap probe of the RDMA class listings and the ports' `state` and
 * `phys_state` rescans only when something changed, so a port going down or up reaches the kubelet within a second.
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
    // inotify reports /dev at once; sysfs never raises it on a real kernel, so sysfs is left to the probe.
    watch: () => ({ devfs: ['/dev/infiniband'] }),
    interval: '500ms',
    probe: rdmaChangeProbe,
    run: ({ host, state }) => readRdmaInventory({ host, numa: state }),
  },
  resources: (inventory, { config, state }) =>
    planResources(config, inventory, { distances: state.distances }),
});
