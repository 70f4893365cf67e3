import { join } from 'node:path';
import { KubeletSocketName } from '@kdp/api';
import type { DraManager } from './dra/dra-manager';
import { restoreKubeletCheckpoint } from './kubelet-checkpoint';
import type { RestartOptions } from './kubelet-sim-types';
import { deviceTopology, type KubeletState } from './kubelet-state';
import { startPluginWatcher } from './plugin-watcher';
import { startPodResourcesServer } from './pod-resources-server';
import { podSnapshots } from './pod-snapshots';
import { defaultPodResourcesRateLimit } from './rate-limiter';
import { createRegisterHandler } from './register-handler';
import { startRegistrationServer } from './registration-server';
import { detachConnection, markResourceStopped } from './resource-streams';
import { waitForEvent } from './sim-events';
import { ensureSocketDir, removeSockets } from './socket-dir';
import { createWatchedPlugins } from './watched-plugins';

/** Options of {@link createKubeletLifecycle}. */
export interface KubeletLifecycleOptions {
  readonly state: KubeletState;
  readonly dra: DraManager | undefined;
  /** The plugin-watcher directory, when the kubelet watches one. */
  readonly registryDir: string | undefined;
}

/** Starting, stopping and restarting the simulated kubelet's servers. */
export interface KubeletLifecycle {
  /** Serves kubelet.sock (and pod-resources, when configured) after loading the checkpoint. */
  start(): Promise<void>;
  /** Stops as a kubelet restart does: servers, plugin watcher, connections and allocations gone. */
  restart(options: RestartOptions): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

/** Creates the lifecycle of a simulated kubelet (not started). */
export function createKubeletLifecycle(options: KubeletLifecycleOptions): KubeletLifecycle {
  const { state, dra, registryDir } = options;
  const onRegister = createRegisterHandler({ state });
  const watched = createWatchedPlugins({ state, dra });

  const serve = async (): Promise<void> => {
    ensureSocketDir(state.dir);
    // P-2: delete every socket except the checkpoint (and a pod-resources socket we serve ourselves).
    const podResourcesSocket = state.options.podResourcesSocket;
    removeSockets(state.dir, podResourcesSocket === undefined ? [] : [podResourcesSocket]);
    // P-5, P-20: after a (re)start only the checkpoint survives: its resources come back stopped and empty.
    for (const record of restoreKubeletCheckpoint(state)) markResourceStopped(state, record);
    // P-3: remove a stale kubelet.sock and listen.
    state.registration = await startRegistrationServer({
      socket: join(state.dir, KubeletSocketName),
      acceptedApis: state.options.acceptedApis ?? ['v1beta1'],
      onRegister,
    });
    // The DRA manager starts before the plugin watcher: checkpoint, slice wipe, pod syncs.
    dra?.start();
    if (registryDir !== undefined) {
      state.watcher = startPluginWatcher({
        dir: registryDir,
        onAdded: (path) => void watched.added(path),
        onRemoved: watched.removed,
      });
    }
  };

  // P-4: on stop the kubelet disconnects every client and stops its server (unlinking kubelet.sock).
  const stop = async (): Promise<void> => {
    state.generation += 1;
    state.stopping.abort();
    state.stopping = new AbortController();
    state.watcher?.close();
    state.watcher = undefined;
    state.watched.clear();
    dra?.stop();
    const server = state.registration;
    state.registration = undefined;
    for (const record of state.resources.values()) {
      detachConnection(record.connection);
      if (record.graceTimer !== undefined) state.clock.clearTimeout(record.graceTimer);
    }
    state.resources.clear();
    state.allocations = [];
    if (server !== undefined) await server.close();
  };

  /** Serves pod-resources when configured; a restart stops and serves it again, as the kubelet does. */
  const servePodResources = async (): Promise<void> => {
    if (state.options.podResourcesSocket === undefined) return;
    state.podResources = await startPodResourcesServer({
      socket: state.options.podResourcesSocket,
      rateLimit: state.options.podResourcesRateLimit ?? defaultPodResourcesRateLimit,
      clock: state.clock,
      source: {
        pods: () => podSnapshots(state, dra?.podSnapshots() ?? []),
        allocatable: () =>
          [...state.resources.values()].map((r) => ({
            resource: r.name,
            devices: r.devices.filter((d) => r.healthy.includes(d.ID)),
          })),
        deviceTopology: (resource, id) => deviceTopology(state, resource, id),
      },
    });
  };

  return {
    start: async () => {
      await serve();
      await servePodResources();
    },
    restart: async (restartOptions) => {
      const before = [...state.resources.values()]
        .filter((r) => r.connection !== undefined)
        .map((r) => r.name);
      const waiting = restartOptions.waitForPlugins
        ? Promise.all(
            before.map((name) =>
              waitForEvent(
                state.events,
                'registered',
                (e) => e.resource === name,
                restartOptions.timeoutMs ?? 10_000,
              ),
            ),
          )
        : undefined;
      waiting?.catch(() => undefined);
      await stop();
      // The pod-resources socket goes away with the kubelet and comes back with it (monitors must redial).
      await state.podResources?.close();
      state.podResources = undefined;
      await serve();
      await servePodResources();
      state.emit('restarted', {});
      await waiting;
    },
    close: async () => {
      if (state.closed) return;
      await stop();
      state.closed = true;
      await state.podResources?.close();
    },
  };
}
