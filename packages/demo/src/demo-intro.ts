import { join } from 'node:path';
import type { DemoPaths } from './demo-layout';
import { PLUGIN_NAMES } from './plugin-names';
import { ALL_IN_ONE, DRA_PLUGIN } from './plugin-processes';

/** The lines that open the demo: the node, the kubelet, the plugins, the DRA driver, its kubeconfig and the log file. */
export function demoIntro(
  nodeRoot: string,
  paths: DemoPaths,
  allInOne: boolean,
  dra: { readonly driver: string; readonly kubeconfig: string },
): string[] {
  return [
    `  node     ${nodeRoot}  (sys, proc, dev; plugin configs in config/)`,
    '           2 NUMA nodes: 2× NVIDIA H100, AMD MI210, Intel E810 with 6 VFs, 2× ConnectX-6 (InfiniBand),',
    '           Intel FPGA (DFL), 6 USB devices (2 FTDI serial, webcam, Zigbee stick, hub, keyboard)',
    `  kubelet  ${join(paths.devicePluginDir, 'kubelet.sock')}  (kubelet-sim, in this process)`,
    allInOne
      ? `  plugins  one process: node packages/device-plugins/dist/main.js serve --plugins ${PLUGIN_NAMES.join(',')} …`
      : '  plugins  five processes: node packages/plugin-<name>/dist/main.js serve …',
    `  DRA      ${dra.driver}: ${allInOne ? `a second ${ALL_IN_ONE} --plugins ${DRA_PLUGIN}` : `the ${DRA_PLUGIN} plugin's binary run again`} with --mode dra, for the same USB`,
    "           devices (one node serving a family both ways is for this demo only), on kubelet-sim's DRA playground:",
    '           an API server over HTTPS, a scheduler evaluating CEL, a kubelet running pods',
    `  kubectl  kubectl --kubeconfig ${dra.kubeconfig} …  (while the demo runs)`,
    `  logs     ${paths.logFile}`,
    '',
  ];
}
