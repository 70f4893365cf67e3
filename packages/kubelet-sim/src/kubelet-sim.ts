import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { admitContainer, preStartContainer } from './device-admission';
import { createDraApiClient } from './dra/dra-api-client';
import { DraCheckpointFileName } from './dra/dra-checkpoint';
import { createDraManager, type DraManager } from './dra/dra-manager';
import { writeKubeletCheckpoint } from './kubelet-checkpoint';
import { createKubeletLifecycle } from './kubelet-lifecycle';
import type { KubeletSim, KubeletSimOptions } from './kubelet-sim-types';
import { createKubeletState, type KubeletState } from './kubelet-state';
import { endResourceStream } from './resource-streams';
import { resourceSnapshot, untilResourceState } from './resource-snapshot';
import { waitForEvent } from './sim-events';

/** The kubelet's one plugins registry, shared by device plugins and DRA drivers; throws when they disagree. */
function pluginsRegistryDir(options: KubeletSimOptions): string | undefined {
  const draOptions = options.dra;
  const registryDir = draOptions?.pluginsRegistryDir ?? options.pluginsRegistryDir;
  if (draOptions !== undefined && registryDir === undefined) {
    throw new Error(
      'kubelet-sim: dra needs a plugins registry directory (dra.pluginsRegistryDir or pluginsRegistryDir)',
    );
  }
  if (
    draOptions?.pluginsRegistryDir !== undefined &&
    options.pluginsRegistryDir !== undefined &&
    draOptions.pluginsRegistryDir !== options.pluginsRegistryDir
  ) {
    throw new Error(
      'kubelet-sim: the kubelet has one plugins registry: dra.pluginsRegistryDir must equal pluginsRegistryDir',
    );
  }
  return registryDir;
}

/** The DRA manager, when the `dra` option turns DRA on. */
function draManagerFor(state: KubeletState): DraManager | undefined {
  const { dra: draOptions, dir } = state.options;
  if (draOptions === undefined) return undefined;
  return createDraManager({
    emit: state.emit,
    clock: state.clock,
    nodeName: draOptions.nodeName ?? 'kubelet-sim-node',
    api: draOptions.apiServer === undefined ? undefined : createDraApiClient(draOptions.apiServer),
    checkpointPath: join(draOptions.stateDir ?? dir, DraCheckpointFileName),
    callTimeoutMs: draOptions.callTimeoutMs ?? 45_000,
    wipeDelayMs: draOptions.wipeDelayMs ?? 30_000,
    healthRetryMs: draOptions.healthRetryMs ?? 5000,
    podSyncRetryMs: draOptions.podSyncRetryMs ?? 1000,
    ...(draOptions.podSyncMaxRetryMs === undefined
      ? {}
      : { podSyncMaxRetryMs: draOptions.podSyncMaxRetryMs }),
    activePods: draOptions.activePods,
    reconcilePeriodMs: draOptions.reconcilePeriodMs,
  });
}

/** Starts a simulated kubelet device manager serving `<dir>/kubelet.sock`. */
export async function createKubeletSim(options: KubeletSimOptions): Promise<KubeletSim> {
  const registryDir = pluginsRegistryDir(options);
  const state = createKubeletState(options);
  const dra = draManagerFor(state);
  const requireDra = (): DraManager => {
    if (dra === undefined) throw new Error('kubelet-sim: DRA is off (pass the dra option)');
    return dra;
  };
  const lifecycle = createKubeletLifecycle({ state, dra, registryDir });
  const current = (name: string): ReturnType<KubeletSim['resource']> => {
    const record = state.resources.get(name);
    return record === undefined ? undefined : resourceSnapshot(record);
  };

  await lifecycle.start();

  return {
    dir: state.dir,
    events: state.events,
    resource: current,
    resources: () => [...state.resources.values()].map(resourceSnapshot),
    admit: (request) => admitContainer(state, request),
    release: (pod, namespace = 'default') => {
      const before = state.allocations.length;
      state.allocations = state.allocations.filter((a) => !(a.pod === pod && a.namespace === namespace));
      if (state.allocations.length !== before) writeKubeletCheckpoint(state);
    },
    startContainer: async (pod, container, namespace = 'default') => {
      for (const allocation of state.allocations) {
        if (
          allocation.pod === pod &&
          allocation.namespace === namespace &&
          allocation.container === container
        ) {
          await preStartContainer(state, allocation);
        }
      }
    },
    restart: (restartOptions = {}) => lifecycle.restart(restartOptions),
    dropStream: (resource) => {
      const record = state.resources.get(resource);
      const connection = record?.connection;
      if (record === undefined || connection === undefined) {
        throw new Error(`kubelet-sim: no open ListAndWatch stream for ${resource}`);
      }
      connection.dropReason = 'stream dropped by the kubelet (kubelet-sim fault injection)';
      endResourceStream(state, record, connection, connection.dropReason);
    },
    stallNext: (rpc, ms) => {
      state.stalls.set(rpc, ms);
    },
    deletePluginSocket: async (resource) => {
      const record = state.resources.get(resource);
      if (record === undefined || record.socketPath === '') {
        throw new Error(`kubelet-sim: no plugin socket known for ${resource}`);
      }
      rmSync(record.socketPath, { force: true });
      await Promise.resolve();
    },
    refuseNextRegister: (message = 'registration refused by kubelet-sim (fault injection)') => {
      state.refusal = message;
    },
    waitFor: (type, predicate, timeoutMs = 10_000) => waitForEvent(state.events, type, predicate, timeoutMs),
    prepareClaims: (pod, claims) => requireDra().prepareClaims(pod, claims),
    deletePod: (pod, namespace = 'default') => requireDra().deletePod(pod, namespace),
    draState: () => requireDra().state(),
    draHealth: (driver) => requireDra().health(driver),
    until: (resource, predicate, timeoutMs = 30_000) =>
      untilResourceState({
        events: state.events,
        resource,
        current: () => current(resource),
        predicate,
        timeoutMs,
      }),
    close: () => lifecycle.close(),
  };
}
