import type { ResourceApiVersion } from './resource-api-discovery';

type Fields = Record<string, unknown>;

/** The fields of a v1beta1 `DeviceRequest` that v1beta2 and v1 hold in `exactly`. */
const EXACT_REQUEST_FIELDS = [
  'deviceClassName',
  'selectors',
  'allocationMode',
  'count',
  'adminAccess',
  'tolerations',
  'capacity',
] as const;

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
  const converted = requests.map((request: unknown) => {
    if (typeof request !== 'object' || request === null) return request;
    const fields = request as Fields;
    if (fields['firstAvailable'] !== undefined || fields['exactly'] !== undefined) return request;
    const exactly: Fields = {};
    const rest: Fields = {};
    for (const [key, value] of Object.entries(fields))
      ((EXACT_REQUEST_FIELDS as readonly string[]).includes(key) ? exactly : rest)[key] = value;
    return { ...rest, exactly };
  });
  return { ...claim, spec: { ...spec, devices: { ...spec?.devices, requests: converted } } };
}
