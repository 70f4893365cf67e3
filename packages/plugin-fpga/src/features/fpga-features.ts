import { resourceCountLabels, type FeatureLabels, type ResourceSet } from '@kdp/core/plugin';
import type { FpgaPayload } from '../resources/fpga-payload';

/**
 * The FPGA plugin's node feature labels: `<resource>.count`, and how many devices carry each Intel interface ID and
 * loaded AFU ID (`kdp.dev/fpga.interface-id.<32 hex>=2`, `kdp.dev/fpga.afu-id.<32 hex>=2`); Intel's plugin labels
 * nothing, so the names are ours.
 */
export function fpgaFeatures(set: ResourceSet): FeatureLabels {
  const labels = resourceCountLabels(set);
  const add = (name: string): void => {
    labels[name] = String(Number(labels[name] ?? 0) + 1);
  };
  for (const spec of set.resources) {
    for (const device of spec.devices) {
      const payload = device.payload as FpgaPayload | undefined;
      if (payload?.interfaceId !== undefined) add(`kdp.dev/fpga.interface-id.${payload.interfaceId}`);
      if (payload?.afuId !== undefined) add(`kdp.dev/fpga.afu-id.${payload.afuId}`);
    }
  }
  return labels;
}
