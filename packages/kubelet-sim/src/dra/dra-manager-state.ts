import type { DraEndpoint } from './dra-endpoint';
import type { PreparedClaim, PreparedDevice } from './dra-events';
import type { DraClaimRef, DraManagerOptions } from './dra-manager-types';

/** A claim in the DRA manager's cache: the pods using it and each driver's prepared devices. */
export interface ClaimInfo {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly podUids: Set<string>;
  readonly drivers: Map<string, PreparedDevice[]>;
  prepared: boolean;
}

/** A pod the DRA manager syncs: its containers' claims, a pending retry, and whether it is being deleted. */
export interface PodRecord {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly containers: Array<{ name: string; claims: string[] }>;
  readonly claims: DraClaimRef[];
  retry?: NodeJS.Timeout;
  /** Syncs failed in a row (the retry backs off). */
  failures?: number;
  deleting?: boolean;
}

/** What the parts of the DRA manager share: its options, drivers, claim cache and pods. */
export interface DraManagerState {
  readonly options: DraManagerOptions;
  /** Each driver's endpoints, oldest first. */
  readonly drivers: Map<string, DraEndpoint[]>;
  /** Endpoints by their plugin-watcher socket. */
  readonly bySocket: Map<string, DraEndpoint>;
  /** Slice deletions waiting for the wipe delay, by driver. */
  readonly pendingWipes: Map<string, unknown>;
  /** The claim cache, by `namespace/name`. */
  claims: Map<string, ClaimInfo>;
  /** Pods by UID. */
  pods: Map<string, PodRecord>;
  /** Bumped by every (re)start and stop, so that work begun before it is dropped. */
  generation: number;
  /** Whether the manager is stopped: then nothing is checkpointed, so work begun before the stop cannot overwrite the checkpoint the next start reloads. */
  stopped: boolean;
  /** Prepares and unprepares run one at a time, as the kubelet's claim cache lock makes them. */
  chain: Promise<unknown>;
}

/** The key of a claim in {@link DraManagerState.claims}. */
export const claimKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The empty state of a DRA manager. */
export function createDraManagerState(options: DraManagerOptions): DraManagerState {
  return {
    options,
    drivers: new Map(),
    bySocket: new Map(),
    pendingWipes: new Map(),
    claims: new Map(),
    pods: new Map(),
    generation: 0,
    stopped: true,
    chain: Promise.resolve(),
  };
}

/** Runs `work` after every earlier serialized work settled. */
export function runSerialized<T>(state: DraManagerState, work: () => Promise<T>): Promise<T> {
  const result = state.chain.then(work, work);
  state.chain = result.catch(() => undefined);
  return result;
}

/** A cached claim as the `dra-prepared` event and `prepareClaims` report it. */
export const preparedClaim = (info: ClaimInfo): PreparedClaim => ({
  name: info.name,
  namespace: info.namespace,
  uid: info.uid,
  devices: [...info.drivers.values()].flat(),
});
