import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import {
  CheckpointFileName,
  type ContainerAllocateResponse,
  type Device,
  type DevicePluginOptions,
  EndpointStopGracePeriodMs,
  PluginDialTimeoutMs,
  PreStartContainerTimeoutSeconds,
} from '@kdp/api';
import { type Clock, systemClock } from '@kdp/base';
import type { KubeletSimOptions, StallableRpc } from './kubelet-sim-types';
import type { PluginEndpoint } from './plugin-endpoint';
import type { PluginWatcher } from './plugin-watcher';
import type { PodResourcesServer } from './pod-resources-server';
import type { RegistrationServerHandle } from './registration-server';
import type { PluginApiVersion, SimEvent, SimEventOf, SimEventType } from './sim-events';

/** An open connection to a plugin: its endpoint and ListAndWatch stream. */
export interface Connection {
  readonly endpoint: PluginEndpoint;
  cancelStream?: () => void;
  detached: boolean;
  dropReason?: string;
}

/** A resource the device manager knows: the plugin serving it, its devices and its connection. */
export interface ResourceRecord {
  readonly name: string;
  endpointName: string;
  socketPath: string;
  apiVersion: PluginApiVersion;
  options: DevicePluginOptions;
  devices: Device[];
  healthy: string[];
  unhealthy: string[];
  connection?: Connection;
  stoppedAt?: number;
  graceTimer?: unknown;
}

/** Devices of one resource held by one container. */
export interface Allocation {
  readonly pod: string;
  readonly namespace: string;
  readonly container: string;
  readonly resource: string;
  readonly deviceIds: string[];
  readonly byNuma: Record<string, string[]>;
  readonly response: ContainerAllocateResponse;
}

/** Emits a simulator event, stamped with its type and time, under its type and as `event`. */
export type SimEmit = <T extends SimEventType>(type: T, payload: Omit<SimEventOf<T>, 'type' | 'at'>) => void;

/** What the parts of the simulated kubelet share: its settings, resources, allocations and servers. */
export interface KubeletState {
  readonly options: KubeletSimOptions;
  readonly dir: string;
  readonly clock: Clock;
  readonly gracePeriodMs: number;
  readonly dialTimeoutMs: number;
  readonly preStartTimeoutMs: number;
  readonly checkpointPath: string;
  readonly events: EventEmitter;
  readonly emit: SimEmit;
  readonly resources: Map<string, ResourceRecord>;
  /** Fault injection: the next call of an RPC waits this long first. */
  readonly stalls: Map<StallableRpc, number>;
  /** Plugin-watcher sockets and the resource each registered. */
  readonly watched: Map<string, string>;
  allocations: Allocation[];
  /** Fault injection: the message the next Register is refused with. */
  refusal: string | undefined;
  registration: RegistrationServerHandle | undefined;
  watcher: PluginWatcher | undefined;
  podResources: PodResourcesServer | undefined;
  /** Bumped by every restart, so that work begun before it is dropped. */
  generation: number;
  /** Aborts dials in flight when the kubelet stops. */
  stopping: AbortController;
  closed: boolean;
  /** Admissions run one at a time (the device manager holds a mutex). */
  admissionChain: Promise<unknown>;
}

/** The state of a kubelet not serving yet, with the kubelet's defaults for what `options` leaves out. */
export function createKubeletState(options: KubeletSimOptions): KubeletState {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const emit: SimEmit = (type, payload) => {
    const event = { type, at: systemClock.now(), ...payload } as unknown as SimEvent;
    events.emit(type, event);
    events.emit('event', event);
  };
  return {
    options,
    dir: options.dir,
    clock: options.clock ?? systemClock,
    gracePeriodMs: options.gracePeriodMs ?? EndpointStopGracePeriodMs,
    dialTimeoutMs: options.dialTimeoutMs ?? PluginDialTimeoutMs,
    preStartTimeoutMs: options.preStartTimeoutMs ?? PreStartContainerTimeoutSeconds * 1000,
    checkpointPath: join(options.dir, CheckpointFileName),
    events,
    emit,
    resources: new Map(),
    stalls: new Map(),
    watched: new Map(),
    allocations: [],
    refusal: undefined,
    registration: undefined,
    watcher: undefined,
    podResources: undefined,
    generation: 0,
    stopping: new AbortController(),
    closed: false,
    admissionChain: Promise.resolve(),
  };
}

/** The pod key of the checkpoint (`namespace/pod`). */
export const podKey = (namespace: string, pod: string): string => `${namespace}/${pod}`;

/** Waits first when fault injection stalls the next call of `rpc`. */
export async function stallRpc(state: KubeletState, rpc: StallableRpc): Promise<void> {
  const ms = state.stalls.get(rpc);
  if (ms === undefined) return;
  state.stalls.delete(rpc);
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** The NUMA nodes of a device of `resource` (empty when it has no topology). */
export const deviceTopology = (state: KubeletState, resource: string, id: string): number[] =>
  state.resources
    .get(resource)
    ?.devices.find((d) => d.ID === id)
    ?.topology?.nodes.map((n) => n.ID) ?? [];
