/** The parts of a `resource.k8s.io/v1` ResourceClaim that the node side reads (JSON field names). */
export interface ResourceClaim {
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly metadata: ResourceClaimMetadata;
  readonly status?: ResourceClaimStatus | undefined;
}

/** `metadata` of a ResourceClaim: its identity. */
export interface ResourceClaimMetadata {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly resourceVersion?: string | undefined;
}

/** `status` of a ResourceClaim: the scheduler's allocation and the pods it is reserved for. */
export interface ResourceClaimStatus {
  readonly allocation?: AllocationResult | undefined;
  readonly reservedFor?: readonly ResourceClaimConsumerReference[] | undefined;
}

/** A pod (or other consumer) a claim is reserved for. */
export interface ResourceClaimConsumerReference {
  readonly apiGroup?: string | undefined;
  readonly resource: string;
  readonly name: string;
  readonly uid: string;
}

/** `status.allocation`: the devices picked for the claim and the nodes that can use them. */
export interface AllocationResult {
  readonly devices?: DeviceAllocationResult | undefined;
  /** The nodes the allocation is usable on; absent means every node. */
  readonly nodeSelector?: NodeSelector | undefined;
}

/** `status.allocation.devices`. */
export interface DeviceAllocationResult {
  readonly results?: readonly DeviceRequestAllocationResult[] | undefined;
  readonly config?: readonly DeviceAllocationConfiguration[] | undefined;
}

/** One allocated device: which request (`main` or `main/sub`) got which device of which driver's pool. */
export interface DeviceRequestAllocationResult {
  readonly request: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  /** Admin access: the device may also be allocated to other claims. */
  readonly adminAccess?: boolean | undefined;
  /** Set when the device allows several allocations (consumable capacity); one share of it. */
  readonly shareID?: string | undefined;
  /** Capacity consumed from a device that allows several allocations. */
  readonly consumedCapacity?: Readonly<Record<string, string>> | undefined;
  /** The request's tolerations of device taints, as the scheduler copied them. */
  readonly tolerations?: readonly DeviceToleration[] | undefined;
}

/** A toleration of device taints (`core/v1` Toleration's rules): `Exists` matches any value, `Equal` the value. */
export interface DeviceToleration {
  /** The taint key; empty with `Exists`: every key. */
  readonly key?: string | undefined;
  readonly operator?: 'Exists' | 'Equal' | string | undefined;
  readonly value?: string | undefined;
  /** `NoSchedule` or `NoExecute`; empty: both. */
  readonly effect?: string | undefined;
  /** With `NoExecute`: how long a pod may stay after the taint is added; absent: for ever. */
  readonly tolerationSeconds?: number | undefined;
}

/** One configuration entry: class configs come first, later entries win. */
export interface DeviceAllocationConfiguration {
  readonly source: 'FromClass' | 'FromClaim' | string;
  /** The requests it applies to; empty or absent means all. */
  readonly requests?: readonly string[] | undefined;
  readonly opaque?: OpaqueDeviceConfiguration | undefined;
}

/** Driver-specific parameters, passed through unparsed. */
export interface OpaqueDeviceConfiguration {
  readonly driver: string;
  readonly parameters: unknown;
}

/** A core/v1 NodeSelector: the terms are ORed, the requirements within a term ANDed. */
export interface NodeSelector {
  readonly nodeSelectorTerms: readonly NodeSelectorTerm[];
}

/** One NodeSelector term. */
export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[] | undefined;
  readonly matchFields?: readonly NodeSelectorRequirement[] | undefined;
}

/** One requirement on a node label (`matchExpressions`) or field (`matchFields`, only `metadata.name`). */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt' | string;
  readonly values?: readonly string[] | undefined;
}

/**
 * Checks that `value` has a ResourceClaim's identity (metadata name, namespace, uid as strings) and returns it
 * typed; throws naming the missing field otherwise. The rest is read defensively where it is used.
 */
export function toResourceClaim(value: unknown): ResourceClaim {
  const metadata = (value as { metadata?: Record<string, unknown> } | null)?.metadata;
  for (const field of ['name', 'namespace', 'uid'] as const) {
    if (typeof metadata?.[field] !== 'string')
      throw new Error(`not a ResourceClaim: metadata.${field} is missing`);
  }
  return value as ResourceClaim;
}
