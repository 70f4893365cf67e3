import { baseRequestName } from './base-request-name';
import { ConfigFieldError } from './decode-claim-config';
import { messageOf } from './message-of';
import type { DeviceAllocationConfiguration, DeviceRequestAllocationResult } from './resource-claim';

/** Decodes the `opaque.parameters` of a configuration entry for this driver; throws why they are not valid. */
export type ConfigDecoder = (parameters: unknown) => unknown;

/** One configuration entry of this driver, its parameters decoded. */
export interface DriverConfig {
  /** `FromClass` or `FromClaim`. */
  readonly source: string;
  /** The requests it applies to (a base name covers its `main/sub` results); empty: all. */
  readonly requests: readonly string[];
  /** What the driver's decoder made of `opaque.parameters`. */
  readonly parameters: unknown;
}

/**
 * This driver's configuration of an allocation (`status.allocation.devices.config`, class entries first, later
 * ones win), each decoded by `decode`. As upstream drivers do, the claim fails with a message naming the field
 * for an entry that applies to one of this driver's requests but is not `opaque` (a kind of configuration this
 * driver cannot know) and for an opaque entry of this driver that `decode` refuses, or any when the driver has no
 * decoder (it takes no configuration). Opaque entries of other drivers are theirs and skipped.
 */
export function checkClaimConfig(
  entries: readonly DeviceAllocationConfiguration[],
  results: readonly DeviceRequestAllocationResult[],
  driver: string,
  decode: ConfigDecoder | undefined,
): DriverConfig[] {
  const ours = new Set(results.flatMap((r) => [r.request, baseRequestName(r.request)]));
  const config: DriverConfig[] = [];
  entries.forEach((entry, index) => {
    const field = `status.allocation.devices.config[${index}]`;
    const requests = entry.requests ?? [];
    if (entry.opaque === undefined || entry.opaque === null) {
      if (requests.length === 0 || requests.some((r) => ours.has(r)))
        throw new Error(
          `${field}: only opaque configuration is supported by driver ${driver} (the entry has no opaque field)`,
        );
      return;
    }
    if (entry.opaque.driver !== driver) return;
    if (decode === undefined)
      throw new Error(`${field}.opaque.parameters: driver ${driver} takes no opaque configuration`);
    let parameters: unknown;
    try {
      parameters = decode(entry.opaque.parameters);
    } catch (error) {
      // A field's problem names its path under the parameters (`….opaque.parameters.sharing.intervl: unknown field`).
      if (error instanceof ConfigFieldError)
        throw new Error(
          `${field}.opaque.parameters${error.path === '' ? '' : `.${error.path}`}: ${error.reason}`,
        );
      throw new Error(`${field}.opaque.parameters: ${messageOf(error)}`);
    }
    config.push({ source: entry.source, requests: [...requests], parameters });
  });
  return config;
}
