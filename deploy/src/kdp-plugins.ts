/** One kdp plugin as deployed: its folder names, binary, metrics port and the config file its ConfigMap holds. */
export interface DeployedPlugin {
  /** The short name: deploy/<name>, deploy/plugins/<name>, packages/plugin-<name>. */
  readonly name: 'gpu' | 'sriov' | 'infiniband' | 'usb' | 'fpga';
  /** The DaemonSet, container and binary name. */
  readonly binary: string;
  /** The port of --metrics-address (/metrics, /healthz, /readyz), distinct per plugin. */
  readonly metricsPort: number;
  /** The key of the example ConfigMap, mounted as a directory at configDir. */
  readonly configKey: string;
  readonly configDir: string;
}

/** The five plugins and the ports documented in deploy/README.md. */
export const deployedPlugins: readonly DeployedPlugin[] = [
  {
    name: 'gpu',
    binary: 'gpu-device-plugin',
    metricsPort: 9401,
    configKey: 'config.yaml',
    configDir: '/etc/kdp/gpu',
  },
  {
    name: 'sriov',
    binary: 'sriov-device-plugin',
    metricsPort: 9402,
    configKey: 'config.json',
    configDir: '/etc/pcidp',
  },
  {
    name: 'infiniband',
    binary: 'infiniband-device-plugin',
    metricsPort: 9403,
    configKey: 'config.yaml',
    configDir: '/etc/kdp/infiniband',
  },
  {
    name: 'usb',
    binary: 'usb-device-plugin',
    metricsPort: 9404,
    configKey: 'config.yaml',
    configDir: '/etc/kdp/usb',
  },
  {
    name: 'fpga',
    binary: 'fpga-device-plugin',
    metricsPort: 9405,
    configKey: 'config.yaml',
    configDir: '/etc/kdp/fpga',
  },
];

/** Every kustomization directory under deploy/ that must build (relative to deploy/). */
export const kustomizations: readonly string[] = [
  'base',
  ...deployedPlugins.map((plugin) => plugin.name),
  ...deployedPlugins.map((plugin) => `plugins/${plugin.name}`),
  'monitor',
  'all',
  'overlays/gpu-cdi',
  'overlays/all-metrics',
];
