import { sliceDeviceFromV1beta1, sliceDeviceToV1beta1 } from '@kdp/api';
import type { ResourceApiVersion } from './resource-api-discovery';
import { capacitiesWithPolicy } from './shared-capacity';
import type { SliceObject } from './slice-object';

/**
 * The `Device` fields besides `name` that each version has in the oldest Kubernetes serving it: v1beta1 in 1.32
 * (`basic: {attributes, capacity}`), v1beta2 in 1.33 (partitionable devices and taints added). v1: all.
 */
const DEVICE_FIELDS: Readonly<Record<ResourceApiVersion, ReadonlySet<string> | undefined>> = {
  v1: undefined,
  v1beta2: new Set([
    'attributes',
    'capacity',
    'consumesCounters',
    'nodeName',
    'nodeSelector',
    'allNodes',
    'taints',
  ]),
  v1beta1: new Set(['attributes', 'capacity']),
};

/** The `ResourceSlice` `spec` fields each version has in the oldest Kubernetes serving it. v1: all. */
const SPEC_FIELDS: Readonly<Record<ResourceApiVersion, ReadonlySet<string> | undefined>> = {
  v1: undefined,
  v1beta2: new Set([
    'driver',
    'pool',
    'nodeName',
    'nodeSelector',
    'allNodes',
    'devices',
    'perDeviceNodeSelection',
    'sharedCounters',
  ]),
  v1beta1: new Set(['driver', 'pool', 'nodeName', 'nodeSelector', 'allNodes', 'devices']),
};

/**
 * Fields whose layout a version's Kubernetes takes otherwise than this package writes it: counter sets in slices of
 * their own (no devices), which Kubernetes 1.35 requires and 1.33 (the only one serving v1beta2 but not v1)
 * refuses — there a device's `consumesCounters` must name a counter set of its own slice.
 */
const LAYOUT_FIELDS: Readonly<Record<ResourceApiVersion, ReadonlySet<string>>> = {
  v1: new Set(),
  v1beta2: new Set(['sharedCounters', 'consumesCounters']),
  v1beta1: new Set(),
};

/** A slice field that the chosen `resource.k8s.io` version lacks: the pool is not published. */
export class SliceVersionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SliceVersionError';
  }
}

type Fields = Record<string, unknown>;

/** A slice to write: a stored one or a new one (`generateName`, no name yet). */
export interface SliceBody {
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly metadata: object;
  readonly spec: SliceObject['spec'];
}

/**
 * A ResourceSlice in the internal `resource.k8s.io/v1` shape written as `version`: in v1beta1 every device's
 * fields move under `basic`; v1beta2 is v1's shape. A field the version lacks (in the oldest Kubernetes that serves
 * it) throws {@link SliceVersionError} naming it, rather than being dropped: a lost counter or taint would let the
 * scheduler hand out what the node does not have.
 */
export function toVersionSlice<T extends SliceBody>(slice: T, version: ResourceApiVersion): T {
  const apiVersion = `resource.k8s.io/${version}`;
  const specFields = SPEC_FIELDS[version];
  const deviceFields = DEVICE_FIELDS[version];
  const unsupported = (what: string): SliceVersionError =>
    new SliceVersionError(
      `${what} is not in ${apiVersion}, the newest resource.k8s.io version the API server serves; ` +
        'upgrade Kubernetes or publish without it',
    );
  const layout = LAYOUT_FIELDS[version];
  const otherLayout = (what: string): SliceVersionError =>
    new SliceVersionError(
      `${what} is written in Kubernetes 1.35's layout (counter sets in ResourceSlices of their own), which ` +
        `${apiVersion} (Kubernetes 1.33) does not take; upgrade Kubernetes or publish without it`,
    );
  for (const field of Object.keys(slice.spec)) {
    if (specFields !== undefined && !specFields.has(field)) throw unsupported(`ResourceSlice spec.${field}`);
    if (layout.has(field)) throw otherLayout(`ResourceSlice spec.${field}`);
  }
  const devices = (slice.spec.devices ?? []).map((device) => {
    const { name, ...rest } = device as Fields;
    for (const field of Object.keys(rest)) {
      if (deviceFields !== undefined && !deviceFields.has(field))
        throw unsupported(`device ${String(name)}: ${field}`);
      if (layout.has(field)) throw otherLayout(`device ${String(name)}: ${field}`);
    }
    // Request policies (shared capacity, KEP 5075) came with v1 (1.34); v1beta1 and v1beta2 drop them.
    const withPolicy = deviceFields === undefined ? [] : capacitiesWithPolicy(device);
    if (withPolicy.length > 0)
      throw unsupported(`device ${String(name)}: capacity ${withPolicy[0] ?? ''} requestPolicy`);
    return version === 'v1beta1' ? sliceDeviceToV1beta1(device) : device;
  });
  if (slice.spec.devices === undefined) return { ...slice, apiVersion };
  return { ...slice, apiVersion, spec: { ...slice.spec, devices } };
}

/** A ResourceSlice read in `version`, in the internal `resource.k8s.io/v1` shape (v1beta1's `basic` unwrapped). */
export function fromVersionSlice(slice: SliceObject, version: ResourceApiVersion): SliceObject {
  if (version !== 'v1beta1') return slice;
  const devices: unknown[] = (slice.spec.devices ?? []).map(sliceDeviceFromV1beta1);
  return { ...slice, spec: { ...slice.spec, devices } };
}
