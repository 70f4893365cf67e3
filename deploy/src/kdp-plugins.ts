/** One ConfigMap a plugin DaemonSet mounts as a directory, and the flag that names the file in it. */
export interface DeployedConfig {
  /** The ConfigMap's name. */
  readonly configMap: string;
  /** The key of the example configuration in it. */
  readonly key: string;
  /** Where it is mounted (a directory: the plugin sees the kubelet swap `..data` and reloads). */
  readonly dir: string;
  /** The flag that names the file: `--config`, or `--<plugin>-config` in the all-in-one. */
  readonly flag: string;
}

/** One kdp plugin DaemonSet: its folder names, binary, package, metrics port, configurations and memory. */
export interface DeployedPlugin {
  /** The short name: deploy/<name>, deploy/plugins/<name>. */
  readonly name: 'gpu' | 'sriov' | 'infiniband' | 'usb' | 'fpga' | 'device-plugins';
  /** The DaemonSet, container, binary and image name. */
  readonly binary: string;
  /** The package folder under packages/. */
  readonly packageDir: string;
  /** The port of --metrics-address (/metrics, /healthz, /readyz), distinct per DaemonSet. */
  readonly metricsPort: number;
  readonly configs: readonly DeployedConfig[];
  /** The container's memory request and limit. */
  readonly memory: { readonly request: string; readonly limit: string };
  /** Whether the binary reads procfs, and so takes `--proc-root`. */
  readonly procfs: boolean;
}

const single = (
  name: DeployedPlugin['name'],
  metricsPort: number,
  key: string,
  dir: string,
): DeployedPlugin => ({
  name,
  binary: `${name}-device-plugin`,
  packageDir: `plugin-${name}`,
  metricsPort,
  configs: [{ configMap: `${name}-device-plugin-config`, key, dir, flag: '--config' }],
  memory: { request: '64Mi', limit: '128Mi' },
  procfs: name === 'gpu' || name === 'sriov',
});

/** The five plugins, each in its own DaemonSet, with the ports documented in deploy/README.md. */
export const singlePlugins: readonly DeployedPlugin[] = [
  single('gpu', 9401, 'config.yaml', '/etc/kdp/gpu'),
  single('sriov', 9402, 'config.json', '/etc/pcidp'),
  single('infiniband', 9403, 'config.yaml', '/etc/kdp/infiniband'),
  single('usb', 9404, 'config.yaml', '/etc/kdp/usb'),
  single('fpga', 9405, 'config.yaml', '/etc/kdp/fpga'),
];

/** All five in one process (kdp-device-plugins): the same ConfigMaps, mounted where the single ones are. */
export const allInOne: DeployedPlugin = {
  name: 'device-plugins',
  binary: 'kdp-device-plugins',
  packageDir: 'device-plugins',
  metricsPort: 9400,
  configs: singlePlugins.flatMap((plugin) =>
    plugin.configs.map((config) => ({ ...config, flag: `--${plugin.name}-config` })),
  ),
  memory: { request: '128Mi', limit: '256Mi' },
  procfs: true,
};

/** Every plugin DaemonSet kdp ships. */
export const deployedPlugins: readonly DeployedPlugin[] = [...singlePlugins, allInOne];

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

/** A plugin DaemonSet run as DRA drivers (`serve --mode dra`): deploy/dra/<name>, its DaemonSet and driver names. */
export interface DraVariant {
  /** The plugin served (its binary, image, port, memory and ConfigMaps are the device plugin's). */
  readonly plugin: DeployedPlugin;
  /** The DaemonSet, container and service-account name (`gpu-dra-driver`, `kdp-dra-drivers`). */
  readonly daemonSet: string;
  /** The DRA driver names it serves (`gpu.kdp.dev`; the all-in-one's five). */
  readonly drivers: readonly string[];
  /** The kustomization directory relative to deploy/ (`dra/gpu`). */
  readonly dir: string;
  /** On the host network (SR-IOV, and the all-in-one serving it): its metrics port is the node's, so no surge. */
  readonly hostNetwork: boolean;
}

const draVariant = (plugin: DeployedPlugin): DraVariant => ({
  plugin,
  daemonSet: plugin === allInOne ? 'kdp-dra-drivers' : `${plugin.name}-dra-driver`,
  drivers: (plugin === allInOne ? singlePlugins : [plugin]).map((served) => `${served.name}.kdp.dev`),
  dir: `dra/${plugin.name}`,
  hostNetwork: plugin.name === 'sriov' || plugin === allInOne,
});

/** The DRA variants deploy/dra ships: each plugin as its DRA driver, and the all-in-one as all five. */
export const draVariants: readonly DraVariant[] = deployedPlugins.map(draVariant);

/** The build each Component is rendered over in the tests (kubectl renders no Component alone). */
export const componentHosts: Readonly<Record<string, string>> = {
  'components/cdi': 'gpu',
  'components/metrics': 'all',
  'components/node-config-label': 'all',
};
