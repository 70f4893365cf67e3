import { validateResourceName } from '@kdp/api';
import type { DeviceSource } from './device-source';
import type { ContainerAllocation, PluginDevice } from './plugin-device';
import type { ResourceDraHooks } from './resource-dra-hooks';

/** What the allocate hook receives for one container request. */
export interface AllocateContext<P> {
  readonly resource: string;
  /** The requested devices, known and healthy, in request order. */
  readonly devices: readonly PluginDevice<P>[];
  /** Index of this container request within the Allocate call. */
  readonly containerIndex: number;
  /** Aborts when the kubelet cancels the call. */
  readonly signal: AbortSignal;
}

/** What the preferredAllocation hook receives (one container, P-26). */
export interface PreferredAllocationContext<P> {
  readonly resource: string;
  /** Devices the kubelet may choose from (known ones only). */
  readonly available: readonly PluginDevice<P>[];
  /** IDs of known devices that must be in the answer, each once (unknown ones are put first by the runtime). */
  readonly mustInclude: readonly string[];
  /** Total number of devices wanted. */
  readonly size: number;
}

/** What the preStartContainer hook receives. */
export interface PreStartContext<P> {
  readonly resource: string;
  /** The devices the container holds (unknown IDs are passed as IDs only in `unknownIds`). */
  readonly devices: readonly PluginDevice<P>[];
  readonly unknownIds: readonly string[];
  readonly signal: AbortSignal;
}

/** Device-plugin options, declared once: sent in Register and returned by GetDevicePluginOptions (P-10). */
export interface ResourceOptions {
  /** The kubelet calls PreStartContainer before every container start; requires `preStartContainer`. */
  readonly preStartRequired?: boolean;
  /** The kubelet calls GetPreferredAllocation; requires `preferredAllocation`. */
  readonly getPreferredAllocationAvailable?: boolean;
}

/** One extended resource a plugin advertises. */
export interface ResourceDeclaration<P = unknown> {
  /** Extended resource name, e.g. `example.com/gpu`; checked with the kubelet's own rules (P-8). */
  readonly name: string;
  /** Pushes the full device list. */
  readonly source: DeviceSource<P>;
  readonly options?: ResourceOptions;
  /** Builds one container's response; default: merge every device's `allocation`. */
  readonly allocate?: (context: AllocateContext<P>) => ContainerAllocation | Promise<ContainerAllocation>;
  /**
   * What the devices need when CDI is the only hand-over (Dynamic Resource Allocation): everything the resource's
   * allocate hook answers — device nodes and mounts included, whatever the device-plugin's device-list strategy —
   * and its own CDI names. Default: `allocate`.
   */
  readonly allocateForCdi?: (
    context: AllocateContext<P>,
  ) => ContainerAllocation | Promise<ContainerAllocation>;
  /**
   * The resource's device-list variables for these devices (`NVIDIA_VISIBLE_DEVICES`), read by a runtime hook
   * under the `envvar` strategy; absent: it has none.
   */
  readonly deviceListEnv?: (devices: readonly PluginDevice<P>[]) => Readonly<Record<string, string>>;
  /** Picks preferred IDs; its answer is always trimmed to the contract. See `topologyPreferredAllocation`. */
  readonly preferredAllocation?: (
    context: PreferredAllocationContext<P>,
  ) => readonly string[] | Promise<readonly string[]>;
  /** Prepares devices before a container starts (30 s budget, P-29). */
  readonly preStartContainer?: (context: PreStartContext<P>) => void | Promise<void>;
  /** Behaviour under Dynamic Resource Allocation only (partitions, counters); the device-plugin API never sees it. */
  readonly dra?: ResourceDraHooks<P>;
}

/** Throws the kubelet's message for a bad resource name and for hooks that do not match the declared options. */
export function checkDeclaration<P>(declaration: ResourceDeclaration<P>): void {
  const name = declaration.name;
  const check = validateResourceName(name);
  if (!check.valid) throw new Error(`${check.message} (${check.reason})`);
  if (typeof declaration.source?.subscribe !== 'function') {
    throw new Error(
      `resource ${name}: source must be a device source (createPushSource, createPollingSource, …)`,
    );
  }
  const options = declaration.options ?? {};
  const pairs: Array<[keyof ResourceOptions, keyof ResourceDeclaration<P>]> = [
    ['preStartRequired', 'preStartContainer'],
    ['getPreferredAllocationAvailable', 'preferredAllocation'],
  ];
  for (const [option, hook] of pairs) {
    const declared = options[option] === true;
    const implemented = typeof declaration[hook] === 'function';
    if (declared && !implemented) {
      throw new Error(`resource ${name}: options.${option} is true but no ${hook} hook is given`);
    }
    if (implemented && !declared) {
      throw new Error(
        `resource ${name}: a ${hook} hook is given but options.${option} is not true, so the kubelet would never call it`,
      );
    }
  }
  if (declaration.allocate !== undefined && typeof declaration.allocate !== 'function') {
    throw new Error(`resource ${name}: allocate must be a function`);
  }
}

/** Identity helper that lets TypeScript infer the payload type `P` across the source and the hooks. */
export function defineResource<P>(declaration: ResourceDeclaration<P>): ResourceDeclaration<P> {
  return declaration;
}

/**
 * A declaration with any payload type, for lists that mix resources (`P` is used both ways, so it is invariant).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above; each entry is checked on its own
export type AnyResourceDeclaration = ResourceDeclaration<any>;
