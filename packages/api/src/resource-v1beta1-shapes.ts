/*
 * The two places where resource.k8s.io/v1beta1 objects differ in shape from v1 (and v1beta2), after the upstream
 * types (k8s.io/api resource/v1beta1 of 1.35):
 * - a ResourceSlice device keeps its fields under `basic` (`{name, basic: {attributes, capacity, …}}`);
 * - a claim (and template) request carries `deviceClassName`, `selectors`, `allocationMode`, `count`,
 *   `adminAccess`, `tolerations` and `capacity` directly instead of under `exactly`; a request with
 *   `firstAvailable` has none of them.
 * Everything else (capacities as `{value}`, counters, allocation results, DeviceClasses) is the same.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields of a v1beta1 `DeviceRequest` that v1beta2 and v1 hold in `exactly`. */
const exactDeviceRequestFields: readonly string[] = [
  'deviceClassName',
  'selectors',
  'allocationMode',
  'count',
  'adminAccess',
  'tolerations',
  'capacity',
];

/** A v1 `DeviceRequest` in v1beta1's shape: the fields of `exactly` moved up. Anything else is returned as is. */
export function deviceRequestToV1beta1(request: unknown): unknown {
  if (!isObject(request) || !isObject(request['exactly'])) return request;
  const { exactly, ...rest } = request;
  return { ...rest, ...exactly };
}

/**
 * A v1beta1 `DeviceRequest` in v1's shape: its exact-request fields moved into `exactly`. A request that already
 * has `exactly`, or a non-empty `firstAvailable`, is returned as is.
 */
export function deviceRequestFromV1beta1(request: unknown): unknown {
  if (!isObject(request) || request['exactly'] !== undefined) return request;
  if (Array.isArray(request['firstAvailable']) && request['firstAvailable'].length > 0) return request;
  const exactly: Json = {};
  const rest: Json = {};
  for (const [key, value] of Object.entries(request))
    (exactDeviceRequestFields.includes(key) ? exactly : rest)[key] = value;
  return { ...rest, exactly };
}

/** A v1 ResourceSlice device in v1beta1's shape: every field but `name` under `basic`. */
export function sliceDeviceToV1beta1(device: unknown): unknown {
  if (!isObject(device)) return device;
  const { name, ...basic } = device;
  return { name, basic };
}

/** A v1beta1 ResourceSlice device in v1's shape: `basic` unwrapped (a device without `basic` is returned as is). */
export function sliceDeviceFromV1beta1(device: unknown): unknown {
  if (!isObject(device) || !isObject(device['basic'])) return device;
  const { basic, ...rest } = device;
  return { ...rest, ...basic };
}
