import { compat, klogFlags, type CompatLayer, type CompatOption } from '@kdp/core/plugin';

/** The modes of Intel's `-mode`, which are our `mode` key's. */
const MODES = ['af', 'region', 'regiondevel'] as const;

/** `-kubeconfig` and `-master`: Intel reads the node's mode annotation through them; only empty is accepted. */
const apiServerFlag = (name: string): CompatOption =>
  compat.accept('value', `the empty ${name} only (in-cluster service account)`, (value) => {
    if (value !== '')
      throw new Error(
        `${JSON.stringify(value)} is not supported: kdp does not read the fpga.intel.com/device-plugin-mode node annotation; choose the mode per node with a --config directory (--node-config-label, or keys named after nodes)`,
      );
  });

/**
 * intel/intel-device-plugins-for-kubernetes v0.36 `intel-fpga-plugin` (cmd/fpga_plugin): `-mode` becomes our
 * `mode` key (resources `fpga.intel.com/af-…` per loaded AFU, or `fpga.intel.com/region-<interface id>`), its
 * node name our `--node-name` (its default, $NODE_NAME, is ours too), klog's flags ours; `-kubeconfig` and
 * `-master`, which it uses only to read the `fpga.intel.com/device-plugin-mode` node annotation, are refused
 * when set. Its admission webhook and CRI hook (`intel-fpga-crihook`) are separate components, not replaced
 * here: region resources load bitstreams in PreStartContainer through `programming` rules instead. Started as
 * it (invoked as `intel_fpga_device_plugin`, or with its flags), Intel's region IDs and Allocate answers (the
 * `anchor` key): the FME's name as a region's ID, the `com.intel.fpga.mode` annotation, no `KDP_FPGA_*`.
 */
export const intelFpgaCompat: CompatLayer = {
  anchor: 'intel/intel-device-plugins-for-kubernetes v0.36 (fpga_plugin)',
  flags: {
    mode: compat.accept('value', 'af, region or regiondevel: the mode key', (value, to) => {
      if (!(MODES as readonly string[]).includes(value))
        throw new Error(`${JSON.stringify(value)} is not one of ${MODES.join(', ')}`);
      to.setConfig(['mode'], value);
    }),
    'node-name': compat.accept(
      'value',
      "this node's name (--node-name); its fpga.intel.com/device-plugin-mode annotation is not read (per-node --config directories choose the mode)",
      (value, to) => {
        if (value !== '') to.flag('node-name', value);
      },
    ),
    kubeconfig: apiServerFlag('kubeconfig'),
    master: apiServerFlag('master'),
    ...klogFlags,
  },
  binaries: ['intel_fpga_device_plugin'],
  asAnchor: (to) => to.setConfig(['anchor'], 'intel-fpga-plugin'),
};
