import { definePlugin } from '@kdp/core/plugin';
import { readNumaTopology } from '@kdp/topology';
import packageJson from '../package.json';
import { k8sRdmaSharedDevPluginCompat } from './compat/k8s-rdma-shared-dev-plugin';
import { rdmaConfigSchema } from './config';
import { infinibandFeatures } from './features/infiniband-features';
import { planResources } from './resources/plan-resources';
import { startPeriodicRescan } from './scan/periodic-rescan';
import { rdmaChangeProbe } from './scan/rdma-change-probe';
import { readRdmaInventory } from './scan/read-rdma-inventory';

/**
 * `infiniband-device-plugin`: one resource per configured entry (k8s-rdma-shared-dev-plugin's format; without a
 * configuration one exclusive `rdma/hca` with a device per RDMA device). A change under /dev/infiniband rescans at
 * once; every --poll-interval (500 ms) a cheap probe of the RDMA class listings and the ports' `state` and
 * `phys_state` rescans only when something changed, so a port going down or up reaches the kubelet within a second.
 */
export function createInfinibandPlugin() {
  return definePlugin({
    name: 'infiniband',
    binary: 'infiniband-device-plugin',
    title: 'InfiniBand / RoCE / Omni-Path RDMA device plugin',
    version: packageJson.version,
    // The format is k8s-rdma-shared-dev-plugin's: keys it may grow are reported, not fatal.
    config: { schema: rdmaConfigSchema, unknownKeys: 'warn' },
    compat: [k8sRdmaSharedDevPluginCompat],
    // The NUMA layout does not change while the process runs: read once, for the local_cpulist fallback and distances.
    // periodicUpdateInterval (upstream's full rescan every N seconds) runs beside the change probe.
    setup: (ctx) => {
      startPeriodicRescan(ctx);
      return readNumaTopology(ctx.host.sysfs);
    },
    scan: {
      // inotify reports /dev at once; sysfs never raises it on a real kernel, so sysfs is left to the probe.
      watch: () => ({ devfs: ['/dev/infiniband'] }),
      interval: '500ms',
      probe: rdmaChangeProbe,
      run: ({ host, state }) => readRdmaInventory({ host, numa: state }),
    },
    resources: (inventory, { config, state, host }) =>
      planResources(config, inventory, { distances: state.distances, sysfs: host.sysfs }),
    features: (set) => infinibandFeatures(set),
  });
}

/** The InfiniBand plugin as its binary and kdp-device-plugins run it. */
export const infinibandPlugin = createInfinibandPlugin();
