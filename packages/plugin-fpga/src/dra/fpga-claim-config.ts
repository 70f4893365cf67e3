import { join } from 'node:path';
import type { ClaimConfigKind, ClaimConfigValue, PluginDevice, ResourceClaimConfig } from '@kdp/core';
import { envSuffix } from '@kdp/dra';
import type { ProgramOutcome } from '../allocate/region-programmer';
import type { ProgrammingRule } from '../config';
import type { FpgaPayload } from '../resources/fpga-payload';

const HEX32 = '^[0-9a-f]{32}$';

/**
 * `fpga.kdp.dev/v1alpha1` `FpgaConfig`: the AFU a claim's FPGA region must carry and the bitstream that loads it (a
 * file under the plugin's `bitstreamDir`), optionally the interface ID the bitstream was built for, checked against
 * the region's. A region without it keeps its configured programming rule.
 */
export const fpgaConfigKind: ClaimConfigKind = {
  apiVersion: 'fpga.kdp.dev/v1alpha1',
  kind: 'FpgaConfig',
  schema: {
    type: 'object',
    required: ['afuId', 'bitstream'],
    fields: {
      afuId: {
        type: 'string',
        pattern: HEX32,
        description: 'The AFU ID the region carries once programmed.',
      },
      bitstream: {
        type: 'string',
        pattern: '^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*$',
        maxLength: 255,
        description: 'The bitstream (GBS) to load, relative to the plugin’s bitstreamDir.',
      },
      interfaceId: {
        type: 'string',
        pattern: HEX32,
        description: 'The interface (FIM) ID the bitstream was built for; must be the region’s.',
      },
    },
  },
};

/** What an FPGA region resource's claim configuration needs from the plugin. */
export interface FpgaClaimConfigOptions {
  /** The region's configured programming rule: its command programs a claim's bitstream too. */
  readonly rule: ProgrammingRule | undefined;
  readonly bitstreamDir: string;
  /** The plugin's region programmer (it serializes programming per device). */
  readonly program: (
    rule: ProgrammingRule,
    devices: readonly PluginDevice<FpgaPayload>[],
    signal: AbortSignal,
  ) => Promise<ProgramOutcome[]>;
  /** Called when a region was programmed (its new afu_id is advertised at once). */
  readonly programmed: () => void;
}

const last = (
  config: readonly ClaimConfigValue[],
): { afuId: string; bitstream: string; interfaceId?: string } =>
  config[config.length - 1] as unknown as { afuId: string; bitstream: string; interfaceId?: string };

/**
 * An Intel FPGA region resource's claim configuration: the claim's `FpgaConfig` (the last one wins) is checked
 * against the region's interface ID and loaded with the region's programming command in place of the configured
 * rule's AFU, unless the region carries that AFU already; `KDP_FPGA_AFU_ID_<DEVICE>` names it.
 */
export function fpgaClaimConfig(options: FpgaClaimConfigOptions): ResourceClaimConfig<FpgaPayload> {
  return {
    kinds: [fpgaConfigKind],
    async apply({ device, deviceName, config, signal }) {
      const wanted = last(config);
      const region = device.payload?.interfaceId ?? '';
      if (wanted.interfaceId !== undefined && wanted.interfaceId !== region)
        throw new Error(
          `FpgaConfig interfaceId ${wanted.interfaceId} is not the interface ID of region ${device.id} (${region}): the bitstream was built for another FPGA image`,
        );
      if (options.rule === undefined)
        throw new Error(
          `FpgaConfig: region ${device.id} (interface ${region}) has no programming rule in the plugin's configuration, so no command to load a bitstream with`,
        );
      const rule: ProgrammingRule = {
        ...options.rule,
        afuId: wanted.afuId,
        bitstream: join(options.bitstreamDir, wanted.bitstream),
      };
      const outcomes = await options.program(rule, [device], signal);
      if (outcomes.some((o) => o.action === 'programmed')) options.programmed();
      return { prepared: true, env: { [`KDP_FPGA_AFU_ID_${envSuffix(deviceName)}`]: wanted.afuId } };
    },
  };
}
