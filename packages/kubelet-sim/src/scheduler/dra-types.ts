import type { DeviceAttributeValue } from './cel/device-input';

// The resource.k8s.io/v1 shapes the scheduler reads and writes (JSON as the API server serves it).

/** `metadata` as the scheduler reads it. */
export interface Meta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly generation?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly deletionTimestamp?: string;
  readonly ownerReferences?: readonly { kind?: string; name?: string; uid?: string; controller?: boolean }[];
}

/** A node selector requirement (core/v1). */
export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  readonly values?: readonly string[];
}

/** A node selector (core/v1): terms ORed, requirements of a term ANDed. */
export interface NodeSelector {
  readonly nodeSelectorTerms: readonly {
    readonly matchExpressions?: readonly NodeSelectorRequirement[];
    readonly matchFields?: readonly NodeSelectorRequirement[];
  }[];
}

/** A device taint. */
export interface DeviceTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'NoExecute' | string;
}

/** A toleration of device taints. */
export interface DeviceToleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: string;
  readonly tolerationSeconds?: number;
}

/** How a shared device's capacity may be requested. */
export interface CapacityRequestPolicy {
  readonly default?: string;
  readonly validValues?: readonly string[];
  readonly validRange?: { readonly min?: string; readonly max?: string; readonly step?: string };
}

/** A device in a ResourceSlice. */
export interface SliceDevice {
  readonly name: string;
  readonly attributes?: Readonly<Record<string, DeviceAttributeValue>>;
  readonly capacity?: Readonly<
    Record<string, { readonly value: string; readonly requestPolicy?: CapacityRequestPolicy }>
  >;
  readonly consumesCounters?: readonly {
    readonly counterSet: string;
    readonly counters: Readonly<Record<string, { readonly value: string }>>;
  }[];
  readonly taints?: readonly DeviceTaint[];
  readonly allowMultipleAllocations?: boolean;
  readonly nodeName?: string;
  readonly nodeSelector?: NodeSelector;
  readonly allNodes?: boolean;
  readonly bindsToNode?: boolean;
  readonly bindingConditions?: readonly string[];
}

/** A ResourceSlice. */
export interface ResourceSlice {
  readonly metadata: Meta;
  readonly spec: {
    readonly driver: string;
    readonly pool: {
      readonly name: string;
      readonly generation: number;
      readonly resourceSliceCount: number;
    };
    readonly nodeName?: string;
    readonly nodeSelector?: NodeSelector;
    readonly allNodes?: boolean;
    readonly perDeviceNodeSelection?: boolean;
    readonly devices?: readonly SliceDevice[];
    readonly sharedCounters?: readonly {
      readonly name: string;
      readonly counters: Readonly<Record<string, { readonly value: string }>>;
    }[];
  };
}

/** A CEL device selector. */
export interface DeviceSelectorSpec {
  readonly cel?: { readonly expression: string };
}

/** Opaque configuration for a driver. */
export interface DeviceConfiguration {
  readonly opaque?: { readonly driver: string; readonly parameters: unknown };
}

/** A DeviceClass. */
export interface DeviceClass {
  readonly metadata: Meta;
  readonly spec?: {
    readonly selectors?: readonly DeviceSelectorSpec[];
    readonly config?: readonly DeviceConfiguration[];
  };
}

/** What `exactly` and each `firstAvailable` subrequest ask for. */
export interface ExactRequest {
  readonly deviceClassName: string;
  readonly selectors?: readonly DeviceSelectorSpec[];
  readonly allocationMode?: 'ExactCount' | 'All';
  readonly count?: number;
  readonly adminAccess?: boolean;
  readonly tolerations?: readonly DeviceToleration[];
  readonly capacity?: { readonly requests?: Readonly<Record<string, string>> };
}

/** A claim's device request. */
export interface DeviceRequest {
  readonly name: string;
  readonly exactly?: ExactRequest;
  readonly firstAvailable?: readonly (ExactRequest & { readonly name: string })[];
}

/** One allocated device. */
export interface DeviceRequestAllocationResult {
  request: string;
  driver: string;
  pool: string;
  device: string;
  adminAccess?: boolean;
  tolerations?: readonly DeviceToleration[];
  shareID?: string;
  consumedCapacity?: Record<string, string>;
}

/** One configuration entry of an allocation. */
export interface DeviceAllocationConfiguration extends DeviceConfiguration {
  source: 'FromClass' | 'FromClaim';
  requests?: string[];
}

/** `status.allocation` of a ResourceClaim. */
export interface AllocationResult {
  devices: { results: DeviceRequestAllocationResult[]; config?: DeviceAllocationConfiguration[] };
  nodeSelector?: NodeSelector;
  allocationTimestamp?: string;
}

/** A ResourceClaim. */
export interface ResourceClaim {
  readonly metadata: Meta;
  readonly spec: {
    readonly devices?: {
      readonly requests?: readonly DeviceRequest[];
      readonly constraints?: readonly {
        readonly requests?: readonly string[];
        readonly matchAttribute?: string;
      }[];
      readonly config?: readonly (DeviceConfiguration & { readonly requests?: readonly string[] })[];
    };
  };
  readonly status?: {
    readonly allocation?: AllocationResult;
    readonly reservedFor?: readonly { resource: string; name: string; uid: string; apiGroup?: string }[];
    /** What the drivers report of the allocated devices (KEP 4817); goes with the allocation. */
    readonly devices?: readonly unknown[];
  };
}

/** The node a pod is placed on, as the allocator sees it. */
export interface NodeInfo {
  readonly metadata: Meta;
}
