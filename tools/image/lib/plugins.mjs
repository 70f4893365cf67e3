// What each plugin's image holds beyond the runtime: its esbuild bundle, and only the native addons (with
// their JavaScript loaders) and shared libraries that plugin loads at run time.

/**
 * An npm package whose files go into /app/node_modules/<name>: `files` are regular expressions over paths
 * inside the package; `{npmArch}` and `{triplet}` are replaced per architecture.
 * @typedef {{ name: string, files: string[] }} AddonPackage
 */

/**
 * koffi binds NVML (libnvidia-ml.so.1, mounted from the host by the NVIDIA runtime) for Xid events, and in every
 * plugin glibc's malloc_trim, which the plugin runtime calls once a burst of calls is over.
 */
const koffi = [
  {
    name: 'koffi',
    files: [
      '^package\\.json$',
      '^LICENSE\\.txt$',
      '^index\\.cjs$',
      '^src/koffi/index\\.cjs$',
      '^src/koffi/src/[^/]+\\.cjs$',
    ],
  },
  {
    name: '@koromix/koffi-linux-{npmArch}',
    files: ['^package\\.json$', '^index\\.js$', '^linux_{npmArch}/koffi\\.node$'],
  },
];

/** node-usb's prebuilt N-API binary (glibc build on x64, armv8 on arm64) and its loader; it links libudev.so.1. */
const usb = [
  {
    name: 'usb',
    files: [
      '^package\\.json$',
      '^LICENSE$',
      '^dist/.*\\.js$',
      '^prebuilds/linux-{npmArch}/node\\.napi\\.(glibc|armv8)\\.node$',
    ],
  },
  {
    name: 'node-gyp-build',
    files: ['^package\\.json$', '^LICENSE$', '^index\\.js$', '^node-gyp-build\\.js$'],
  },
];
const libudev = [{ package: 'libudev1', sonames: ['libudev.so.1'] }];

/**
 * The established plugins' binary names, at the paths their images hold them and their manifests run them
 * (`command`, or the image's entrypoint with the manifest's `args` only): each becomes a link to /app/main.js,
 * whose entry runs that plugin (with its compat layers) when invoked by that name. Relative commands resolve
 * against the image's PATH (/usr/local/bin, /usr/bin, /bin after /nodejs/bin) or the working directory.
 */
const anchors = {
  // NVIDIA/k8s-device-plugin's image (deployments/container/Dockerfile): /usr/bin/nvidia-device-plugin, its
  // entrypoint and the Helm chart's command, and /usr/bin/config-manager, the chart's init container and sidecar.
  nvidia: ['usr/bin/nvidia-device-plugin', 'usr/bin/config-manager'],
  // ROCm/k8s-device-plugin's k8s-ds-amdgpu-dp-health.yaml: `workingDir: /root`, `command: ["./k8s-device-plugin"]`.
  rocm: ['root/k8s-device-plugin'],
  // intel-device-plugins-for-kubernetes' images install to /usr/local/bin and use it as the entrypoint.
  intelGpu: ['usr/local/bin/intel_gpu_device_plugin'],
  intelFpga: ['usr/local/bin/intel_fpga_device_plugin'],
  // sriov-network-device-plugin: /usr/bin/sriovdp and the image's entrypoint /entrypoint.sh (WORKDIR /).
  sriov: ['usr/bin/sriovdp', 'entrypoint.sh'],
  // Mellanox/k8s-rdma-shared-dev-plugin: /bin/k8s-rdma-shared-dp, the image's CMD.
  rdma: ['bin/k8s-rdma-shared-dp'],
  // squat/generic-device-plugin: ENTRYPOINT ["/generic-device-plugin"].
  gdp: ['generic-device-plugin'],
};
const gpuLinks = [...anchors.nvidia, ...anchors.rocm, ...anchors.intelGpu];

/**
 * The five plugins, the all-in-one binary and the device monitor: Nx project, binary name, the image's default
 * arguments (`cmd`, `['serve']` when absent), npm packages and Debian-provided libraries each needs, and the
 * anchors' binary names (`links`, paths inside the image) linked to its entry.
 */
export const plugins = {
  gpu: {
    project: '@kdp/plugin-gpu',
    binary: 'gpu-device-plugin',
    addons: koffi,
    libraries: [],
    links: gpuLinks,
  },
  sriov: {
    project: '@kdp/plugin-sriov',
    binary: 'sriov-device-plugin',
    addons: koffi,
    libraries: [],
    links: anchors.sriov,
  },
  infiniband: {
    project: '@kdp/plugin-infiniband',
    binary: 'infiniband-device-plugin',
    addons: koffi,
    libraries: [],
    links: anchors.rdma,
  },
  usb: {
    project: '@kdp/plugin-usb',
    binary: 'usb-device-plugin',
    addons: [...koffi, ...usb],
    libraries: libudev,
    links: anchors.gdp,
  },
  fpga: {
    project: '@kdp/plugin-fpga',
    binary: 'fpga-device-plugin',
    addons: koffi,
    libraries: [],
    links: anchors.intelFpga,
  },
  // The five plugins in one process (`serve --plugins gpu,usb,…`): its bundle keeps koffi and usb external, so
  // it holds the union of the plugins' addons and libraries.
  'device-plugins': {
    project: '@kdp/device-plugins',
    binary: 'kdp-device-plugins',
    addons: [...koffi, ...usb],
    libraries: libudev,
    links: [...gpuLinks, ...anchors.sriov, ...anchors.rdma, ...anchors.gdp, ...anchors.intelFpga],
  },
  // Not a device plugin: the per-node PodResources metrics exporter that deploy/monitor runs. It has no
  // subcommands, so its image has no default `serve` argument.
  monitor: {
    project: '@kdp/monitor',
    binary: 'device-monitor',
    cmd: [],
    addons: [],
    libraries: [],
    links: [],
  },
};
