import { isRefused, type CompatLayer, type CompatOption } from './compat-layer';

/**
 * The memory limit a drop-in needs: kdp's binaries (Node.js) measured 60–68 MiB resident when idle and 70–81 MiB at
 * their peak (VmRSS/VmHWM of each of the five plugins and kdp-device-plugins serving against kubelet-sim), where the
 * anchors' manifests set as little as 20Mi (generic-device-plugin), 60Mi (Intel FPGA) or 90Mi (Intel GPU).
 */
export const DROP_IN_MEMORY_LIMIT =
  "memory: set the container's memory limit to 128Mi or more; kdp uses 60–68 MiB idle, up to 81 MiB at start, so raise an anchor manifest's lower limit (generic-device-plugin's 20Mi and Intel FPGA's 60Mi get it OOM-killed, Intel GPU's 90Mi leaves little margin)";

const row = (left: string, option: CompatOption): string =>
  `  ${left.padEnd(32)}  ${isRefused(option) ? `refused: ${option.refuse}` : option.description}`;

/** The --help section of one compat layer: its flags and variables, each accepted (what it does) or refused (why). */
export function formatCompatHelp(layer: CompatLayer, binaryFlags: boolean): string {
  const lines = [`Drop-in for ${layer.anchor}:`, `  ${DROP_IN_MEMORY_LIMIT}`];
  if (binaryFlags) {
    for (const [name, option] of Object.entries(layer.flags ?? {}))
      lines.push(row(`-${name}${option.kind === 'value' ? ' VALUE' : ''}`, option));
    for (const [name, option] of Object.entries(layer.env ?? {})) lines.push(row(`$${name}`, option));
  }
  if (layer.defaultConfigPaths !== undefined && layer.defaultConfigPaths.length > 0)
    lines.push(`  default configuration (without --config): ${layer.defaultConfigPaths.join(', ')}`);
  if (layer.configFormat !== undefined)
    lines.push(
      '  its configuration file format is detected and converted (discover --output json shows the result)',
    );
  return lines.join('\n');
}
