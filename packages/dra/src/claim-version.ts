import { deviceRequestFromV1beta1 } from '@kdp/api';
import type { ResourceApiVersion } from './resource-api-discovery';

type Fields = Record<string, unknown>;

/**
 * A ResourceClaim read in `version`, in the internal `resource.k8s.io/v1` shape. v1beta1 requests hold their
 * device class, selectors, allocation mode, count, admin access and tolerations directly, v1 in `exactly`
 * (a `firstAvailable` request keeps its subrequests, which are alike in every version); `status` (allocation
 * results and config, `reservedFor`) is the same in all three, and v1beta2 is v1's shape throughout.
 */
export function fromVersionClaim(claim: unknown, version: ResourceApiVersion): unknown {
  if (version !== 'v1beta1' || typeof claim !== 'object' || claim === null) return claim;
  const spec = (claim as { spec?: { devices?: Fields } }).spec;
  const requests = spec?.devices?.['requests'];
  if (!Array.isArray(requests)) return claim;
  const converted = requests.map(deviceRequestFromV1beta1);
  return { ...claim, spec: { ...spec, devices: { ...spec?.devices, requests: converted } } };
}
