import { definePlugin, flag } from '@kdp/core/plugin';
import packageJson from '../package.json';
import { DEFAULT_DEVINFO_DIR } from './allocate/device-info';
import { createDeviceInfoStore, type DeviceInfoStore } from './allocate/device-info-store';
import { sriovNetworkDevicePluginCompat } from './compat/sriov-network-device-plugin';
import { DEFAULT_RESOURCE_PREFIX, sriovConfigSchema } from './config';
import { sriovFeatures } from './features/sriov-features';
import { assignPools, poolIndex } from './resources/assign-pools';
import { poolResources, type SriovScan } from './resources/pool-resources';
import { nicChangeProbe } from './scan/nic-change-probe';
import { createNicScanCache, scanNics, type NicScanCache } from './scan/scan-nics';

/** What lives as long as the process: each function's pool at the last scan, the scan cache, the device-info files. */
interface SriovState {
  previous: ReadonlyMap<string, string>;
  readonly cache: NicScanCache;
  readonly store: DeviceInfoStore;
}

/**
 * `sriov-device-plugin`: a drop-in for sriov-network-device-plugin (its configuration file, resource names,
 * Allocate answers and Multus device-info files), with one resource per pool. A change probe (the kernel's
 * uevent count or the function and driver lists, `sriov_numvfs`, PF carrier, the default route) runs every
 * --poll-interval and a full scan only when it differs, so an sriov_numvfs change, a driver rebind or a PF
 * losing its carrier reaches the kubelet within a second without a restart, and an idle node costs next to
 * nothing.
 */
export function createSriovPlugin() {
  return definePlugin({
    name: 'sriov',
    binary: 'sriov-device-plugin',
    title: 'SR-IOV network device plugin (drop-in for sriov-network-device-plugin)',
    version: packageJson.version,
    config: { schema: sriovConfigSchema, unknownKeys: 'warn' }, // upstream's format: unknown keys are warnings
    compat: [sriovNetworkDevicePluginCompat],
    flags: {
      'resource-prefix': flag.string({
        description: 'resource prefix of pools without resourcePrefix',
        valueName: 'PREFIX',
        default: DEFAULT_RESOURCE_PREFIX,
      }),
      'devinfo-dir': flag.path({
        description: 'where Multus device-info files are written',
        serveOnly: true,
        valueName: 'DIR',
        default: DEFAULT_DEVINFO_DIR,
      }),
      'vanished-grace': flag.duration({
        description: 'how long a vanished VF stays advertised as Unhealthy',
        serveOnly: true,
        default: '30s',
      }),
    },
    // /proc/net/route (the interface holding the default route is never offered); sys/kernel/osrelease.
    reads: { procfs: true },
    health: { vanishedGraceMs: ({ flags }) => flags['vanished-grace'] },
    setup: ({ flags }): SriovState => ({
      previous: new Map(),
      cache: createNicScanCache(),
      store: createDeviceInfoStore(flags['devinfo-dir']),
    }),
    scan: {
      // inotify: functions and netdevs coming and going (fixtures; real sysfs raises no events, the probe sees
      // those), and the VFIO and RDMA device nodes, which appear a moment after a bind and go into CDI specs.
      watch: () => ({ sysfs: ['bus/pci/devices', 'class/net'], devfs: ['/dev/vfio', '/dev/infiniband'] }),
      interval: '500ms',
      probe: (scan: SriovScan) => nicChangeProbe(scan.node),
      run: async ({ host, config, flags, state }): Promise<SriovScan> => {
        const node = await scanNics(host, state.cache);
        const defaultPrefix = flags['resource-prefix'];
        // A function that fails its pool's selectors only for now (driver unbound) stays in it, Unhealthy.
        const assignment = assignPools(node, config, { defaultPrefix, previous: state.previous });
        state.previous = poolIndex(assignment);
        return { node, assignment };
      },
    },
    resources: (scan, { config, flags, host, state, logger }) =>
      poolResources(scan, config, {
        defaultPrefix: flags['resource-prefix'],
        vhostNet: async () =>
          (await host.devfs.hasNode('/dev/vhost-net')) && (await host.devfs.hasNode('/dev/net/tun')),
        store: state.store,
        logger,
        sysfs: host.sysfs,
      }),
    features: (set) => sriovFeatures(set),
    hooks: {
      // Device-info files of devices no longer advertised (vanished past the grace, pool removed) go.
      advertise: async (set, { state, logger }) => {
        const keep = new Map(set.resources.map((r) => [r.name, new Set(r.devices.map((d) => d.id))]));
        await state.store
          .prune(keep)
          .catch((error: unknown) => logger.warn({ err: error }, 'cannot remove a device-info file'));
      },
      stop: ({ state }) => state.store.removeAll(),
    },
  });
}

/** The SR-IOV plugin as its binary and kdp-device-plugins run it. */
export const sriovPlugin = createSriovPlugin();
