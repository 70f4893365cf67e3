import type { ContainerAllocation, PluginDevice } from '@kdp/core';
import type { FpgaPayload } from '../resources/fpga-payload';

/** Intel's annotation of a region-mode Allocate, which its CRI hook (`intel-fpga-crihook`) acts on. */
export const INTEL_FPGA_MODE_ANNOTATION = { 'com.intel.fpga.mode': 'fpga.intel.com/region' } as const;

/** How intel-fpga-plugin answers, when started as it: its region annotation (region mode), no variables. */
export interface AsIntelFpga {
  readonly region: boolean;
}

/**
 * One container's allocation: every device node of the devices it holds, plus envs naming them:
 * `KDP_FPGA_DEVICE_IDS`; Intel `KDP_FPGA_PORTS`, `KDP_FPGA_INTERFACE_ID`, `KDP_FPGA_AFU_ID` (the loaded AFU in
 * af mode, the configured one in region mode), `KDP_FPGA_FMES` (regiondevel); AMD `KDP_FPGA_RENDER_NODES`
 * and `KDP_FPGA_MGMT_NODES` (when management nodes are handed out). Started as intel-fpga-plugin (`asIntel`),
 * the nodes alone, and in region mode Intel's `com.intel.fpga.mode` annotation.
 */
export function allocateFpgas(
  devices: readonly PluginDevice<FpgaPayload>[],
  programmedAfuId?: string,
  asIntel?: AsIntelFpga,
): ContainerAllocation {
  const payloads = devices.flatMap((d) => (d.payload ? [d.payload] : []));
  const nodes = new Map(payloads.flatMap((p) => p.nodes.map((n) => [n.hostPath, n] as const)));
  if (asIntel !== undefined)
    return {
      devices: [...nodes.values()],
      ...(asIntel.region ? { annotations: INTEL_FPGA_MODE_ANNOTATION } : {}),
    };
  const envs: Record<string, string> = { KDP_FPGA_DEVICE_IDS: devices.map((d) => d.id).join(',') };
  const list = (values: readonly (string | undefined)[]): string =>
    [...new Set(values.filter((v): v is string => v !== undefined && v !== ''))].join(',');
  const intel = payloads.filter((p) => p.vendor === 'intel');
  if (intel.length > 0) {
    envs['KDP_FPGA_PORTS'] = list(intel.flatMap((p) => p.ports.map((port) => port.devNode)));
    envs['KDP_FPGA_INTERFACE_ID'] = list(intel.map((p) => p.interfaceId));
    const afu = programmedAfuId ?? list(intel.map((p) => p.afuId));
    if (afu !== '') envs['KDP_FPGA_AFU_ID'] = afu;
    const fmes = list(
      intel.flatMap((p) =>
        p.nodes.filter((n) => /\/(dfl|intel-fpga)-fme\.\d+$/.test(n.hostPath)).map((n) => n.hostPath),
      ),
    );
    if (fmes !== '') envs['KDP_FPGA_FMES'] = fmes;
  }
  const amd = payloads.filter((p) => p.vendor === 'amd');
  if (amd.length > 0) {
    envs['KDP_FPGA_RENDER_NODES'] = list(amd.map((p) => p.card?.renderNode));
    const mgmt = list(
      amd.flatMap((p) => p.nodes.filter((n) => n.hostPath.startsWith('/dev/xclmgmt')).map((n) => n.hostPath)),
    );
    if (mgmt !== '') envs['KDP_FPGA_MGMT_NODES'] = mgmt;
  }
  return { devices: [...nodes.values()], envs };
}
