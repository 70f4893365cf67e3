import { Code, DevicePluginError, type PreStartContext } from '@kdp/core';
import { definePlugin } from '@kdp/core/plugin';
import packageJson from '../package.json';
import { createRegionProgrammer, type RegionProgrammer } from './allocate/region-programmer';
import { intelFpgaCompat } from './compat/intel-fpga';
import { xilinxFpgaCompat } from './compat/xilinx-fpga';
import { fpgaConfigSchema, type ProgrammingRule } from './config';
import { fpgaClaimConfig } from './dra/fpga-claim-config';
import type { FpgaPayload } from './resources/fpga-payload';
import { fpgaFeatures } from './features/fpga-features';
import { planResources } from './resources/plan-resources';
import { fpgaChangeProbe } from './scan/fpga-change-probe';
import { scanFpgas, type FpgaScan } from './scan/scan-fpgas';

/**
 * `fpga-device-plugin`: Intel FPGAs (DFL and OPAE drivers) and AMD/Xilinx Alveo cards, one resource per name
 * made from what is loaded on them; region resources with a programming rule load the rule's AFU in
 * PreStartContainer. Rescanned on every change under /dev, /dev/dri and the FPGA classes, and when the change
 * probe (every --poll-interval, 500 ms) sees a card, port, AFU, interface ID or error register change. Reads no
 * procfs, so it has no --proc-root.
 */
export function createFpgaPlugin() {
  return definePlugin({
    name: 'fpga',
    binary: 'fpga-device-plugin',
    title: 'FPGA device plugin (Intel DFL/OPAE, AMD/Xilinx Alveo)',
    version: packageJson.version,
    config: { schema: fpgaConfigSchema },
    compat: [intelFpgaCompat, xilinxFpgaCompat],
    // The programmer serializes programming per device for the life of the process; a new bitstreamDir makes a new one.
    setup: ({ host, logger }) => {
      let programmer: RegionProgrammer | undefined;
      return {
        programmer: (bitstreamDir: string): RegionProgrammer =>
          programmer?.bitstreamDir === bitstreamDir
            ? programmer
            : (programmer = createRegionProgrammer({ sysfs: host.sysfs, bitstreamDir, logger })),
      };
    },
    scan: {
      watch: () => ({ devfs: ['/dev', '/dev/dri'], sysfs: ['class/fpga_region', 'class/fpga'] }),
      // Health (error registers) and reprogramming live in sysfs, which inotify does not report on real kernels:
      // the probe reads them every 500 ms, so a change reaches the kubelet well within 1 s.
      interval: '500ms',
      probe: (scan: FpgaScan) => fpgaChangeProbe(scan),
      run: ({ host }) => scanFpgas(host),
    },
    resources: (scan, ctx) => {
      const { config, state } = ctx;
      const programmer = (): RegionProgrammer => state.programmer(config.bitstreamDir);
      const claimConfig = (rule: ProgrammingRule | undefined) =>
        fpgaClaimConfig({
          rule,
          bitstreamDir: config.bitstreamDir,
          program: (claimRule, devices, signal) => programmer().prepare(claimRule, devices, signal),
          programmed: () => ctx.rescan(),
        });
      const prepare = async (
        rule: ProgrammingRule,
        { resource, devices, unknownIds, signal }: PreStartContext<FpgaPayload>,
      ): Promise<void> => {
        if (unknownIds.length > 0) {
          throw new DevicePluginError(
            Code.NotFound,
            `fpga-device-plugin: unknown ${resource} devices: ${unknownIds.join(', ')}`,
          );
        }
        const outcomes = await programmer().prepare(rule, devices, signal);
        // The new afu_id is advertised at once rather than at the next poll.
        if (outcomes.some((outcome) => outcome.action === 'programmed')) ctx.rescan();
      };
      return planResources(scan, config, prepare, claimConfig);
    },
    features: (set) => fpgaFeatures(set),
  });
}

/** The FPGA plugin as its binary and kdp-device-plugins run it. */
export const fpgaPlugin = createFpgaPlugin();
