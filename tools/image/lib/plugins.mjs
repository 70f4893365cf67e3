// What each plugin's image holds beyond the runtime: its esbuild bundle, and only the native addons (with
// their JavaScript loaders) and shared libraries that plugin loads at run time.

/**
 * An npm package whose files go into /app/node_modules/<name>: `files` are regular expressions over paths
 * inside the package; `{npmArch}` and `{triplet}` are replaced per architecture.
 * @typedef {{ name: string, files: string[] }} AddonPackage
 */

/** koffi binds NVML (libnvidia-ml.so.1, mounted from the host by the NVIDIA runtime) for Xid events. */
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
 * The five plugins, the all-in-one binary and the device monitor: Nx project, binary name, the image's default
 * arguments (`cmd`, `['serve']` when absent), npm packages and Debian-provided libraries each needs.
 */
export const plugins = {
  gpu: { project: '@kdp/plugin-gpu', binary: 'gpu-device-plugin', addons: koffi, libraries: [] },
  sriov: { project: '@kdp/plugin-sriov', binary: 'sriov-device-plugin', addons: [], libraries: [] },
  infiniband: {
    project: '@kdp/plugin-infiniband',
    binary: 'infiniband-device-plugin',
    addons: [],
    libraries: [],
  },
  usb: { project: '@kdp/plugin-usb', binary: 'usb-device-plugin', addons: usb, libraries: libudev },
  fpga: { project: '@kdp/plugin-fpga', binary: 'fpga-device-plugin', addons: [], libraries: [] },
  // The five plugins in one process (`serve --plugins gpu,usb,…`): its bundle keeps koffi and usb external, so
  // it holds the union of gpu's and usb's addons and libraries.
  'device-plugins': {
    project: '@kdp/device-plugins',
    binary: 'kdp-device-plugins',
    addons: [...koffi, ...usb],
    libraries: libudev,
  },
  // Not a device plugin: the per-node PodResources metrics exporter that deploy/monitor runs. It has no
  // subcommands, so its image has no default `serve` argument.
  monitor: { project: '@kdp/monitor', binary: 'device-monitor', cmd: [], addons: [], libraries: [] },
};
