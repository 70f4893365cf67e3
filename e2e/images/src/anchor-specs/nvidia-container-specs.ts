/** The parts of a pod's container the image must honour: Kubernetes' `command`, `args`, `env`, `workingDir`. */
export interface ContainerSpec {
  /** Replaces the image's Entrypoint (its Cmd is then ignored unless `args` is also absent). */
  readonly command?: readonly string[];
  /** Replaces the image's Cmd. */
  readonly args?: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly workingDir?: string;
  /** Where the manifest mounts the kubelet's device-plugins directory. */
  readonly devicePluginDir: string;
}

/**
 * NVIDIA/k8s-device-plugin v0.20.0's static DaemonSet, deployments/static/nvidia-device-plugin.yml, container
 * `nvidia-device-plugin-ctr`, re-typed: no command, no args (the image's entrypoint), `env: []`.
 */
export const nvidiaStaticDaemonSet: ContainerSpec = {
  env: {},
  devicePluginDir: '/var/lib/kubelet/device-plugins',
};

/**
 * NVIDIA's Helm chart nvidia-device-plugin 0.20.0 (deployments/helm/nvidia-device-plugin), rendered with helm
 * v4.1.4 from its published values.yaml plus `--set image.repository=kdp/gpu-device-plugin --set image.tag=0.1.0
 * --set-file config.map.config=<a version: v1 file>` (a `config.map` is what turns on the config-manager init
 * container and sidecar): `helm template nvdp deployments/helm/nvidia-device-plugin --namespace
 * nvidia-device-plugin …`. Re-typed from the DaemonSet nvdp-nvidia-device-plugin. NODE_NAME comes from
 * `fieldRef: spec.nodeName`.
 */
export const nvidiaHelmChart = {
  /** initContainers[0] `nvidia-device-plugin-init`. */
  init: {
    command: ['config-manager'],
    env: {
      ONESHOT: 'true',
      KUBECONFIG: '',
      NODE_LABEL: 'nvidia.com/device-plugin.config',
      CONFIG_FILE_SRCDIR: '/available-configs',
      CONFIG_FILE_DST: '/config/config.yaml',
      DEFAULT_CONFIG: '',
      FALLBACK_STRATEGIES: 'named,single',
      SEND_SIGNAL: 'false',
      SIGNAL: '',
      PROCESS_TO_SIGNAL: '',
    },
    devicePluginDir: '',
  },
  /** containers[0] `nvidia-device-plugin-sidecar` (shareProcessNamespace: true). */
  sidecar: {
    command: ['config-manager'],
    env: {
      ONESHOT: 'false',
      KUBECONFIG: '',
      NODE_LABEL: 'nvidia.com/device-plugin.config',
      CONFIG_FILE_SRCDIR: '/available-configs',
      CONFIG_FILE_DST: '/config/config.yaml',
      DEFAULT_CONFIG: '',
      FALLBACK_STRATEGIES: 'named,single',
      SEND_SIGNAL: 'true',
      SIGNAL: '1',
      PROCESS_TO_SIGNAL: 'nvidia-device-plugin',
    },
    devicePluginDir: '',
  },
  /** containers[1] `nvidia-device-plugin-ctr`; it also mounts /config and /available-configs. */
  plugin: {
    command: ['nvidia-device-plugin'],
    env: {
      MPS_ROOT: '/run/nvidia/mps',
      CONFIG_FILE: '/config/config.yaml',
      NVIDIA_MIG_MONITOR_DEVICES: 'all',
      NVIDIA_VISIBLE_DEVICES: 'all',
      NVIDIA_DRIVER_CAPABILITIES: 'compute,utility',
    },
    devicePluginDir: '/var/lib/kubelet/device-plugins',
  },
  /** The `config` key of the ConfigMap nvdp-nvidia-device-plugin-configs (the file given with --set-file). */
  config:
    'version: v1\nflags:\n  migStrategy: "none"\n  failOnInitError: true\n  nvidiaDriverRoot: "/"\n  plugin:\n    passDeviceSpecs: false\n    deviceListStrategy: envvar\n    deviceIDStrategy: uuid\n',
} satisfies Record<string, ContainerSpec | string>;
