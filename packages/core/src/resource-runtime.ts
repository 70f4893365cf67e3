import { unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { KubeletSocketName } from '@kdp/api';
import type { AllocationTransform } from './allocate-containers';
import type { DeviceStore } from './device-store';
import { createDeviceStore } from './device-store';
import type { DirectoryWatcher } from './directory-watcher';
import { followDeviceSource } from './follow-device-source';
import { createNotifier } from './notifier';
import type { PluginDevice } from './plugin-device';
import type { ResourceState } from './plugin-events';
import type { ApiVersion } from './registration-client';
import { runRegistrationLoop, type RegistrationPolicy } from './registration-loop';
import { createRegistrationRound, type RegistrationSignals } from './registration-round';
import type { ResourceDeclaration } from './resource-declaration';
import { createResourceSocket } from './resource-socket';
import { createResourceStateTracker } from './resource-state-tracker';
import { shutdownAdvertisement } from './shutdown-advertisement';
import { createStopGate } from './stop-gate';

/** Everything one resource's lifecycle needs from its plugin. */
export interface ResourceRuntimeOptions<P> extends RegistrationPolicy {
  readonly declaration: ResourceDeclaration<P>;
  /** The kubelet's device-plugin directory (kubelet.sock lives here). */
  readonly devicePluginDir: string;
  /** This resource's socket path (in devicePluginDir, or plugins_registry in plugin-watcher mode). */
  readonly socketPath: string;
  readonly apiVersions: readonly ApiVersion[];
  /** Watchers of the kubelet's directory and of the socket's directory (the same object in kubelet mode). */
  readonly kubeletDirWatcher: DirectoryWatcher;
  readonly socketDirWatcher: DirectoryWatcher;
  readonly debounceMs: number;
  readonly registerTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  readonly advertiseOnShutdown: 'none' | 'empty' | 'unhealthy';
  readonly transform?: AllocationTransform | undefined;
}

/** A snapshot of one resource for status pages and readiness. */
export interface ResourceStatus {
  readonly name: string;
  readonly state: ResourceState;
  readonly socketPath: string;
  readonly apiVersion?: ApiVersion;
  readonly devices: readonly PluginDevice<unknown>[];
  readonly openStreams: number;
}

/** One resource's lifecycle: serve → register → watch → re-register, isolated from every other resource. */
export interface ResourceRuntime {
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
  /** The slow fallback poll (P-2/P-3 seen by lstat); the plugin calls it for every resource. */
  poll(): void;
  status(): ResourceStatus;
}

/** Creates the lifecycle of one resource; nothing happens until `start`. */
export function createResourceRuntime<P>(options: ResourceRuntimeOptions<P>): ResourceRuntime {
  const { declaration, clock, logger, emit, socketPath, mode } = options;
  const resource = declaration.name;
  const kubeletSocket = join(options.devicePluginDir, KubeletSocketName);
  const socketName = basename(socketPath);
  const store: DeviceStore<P> = createDeviceStore<P>(resource);
  const state = createResourceStateTracker({ resource, clock, logger, emit });
  const gate = createStopGate(clock);

  let loop: Promise<void> | undefined;
  let unsubscribeSource: (() => void) | undefined;
  const unsubscribeWatchers: Array<() => void> = [];

  const signals: RegistrationSignals = {
    check: createNotifier(),
    kubeletChanged: createNotifier(),
    watcherNotified: createNotifier(),
  };

  const socket = createResourceSocket({
    declaration,
    store,
    clock,
    logger,
    emit,
    transform: options.transform,
    socketPath,
    mode,
    shutdownTimeoutMs: options.shutdownTimeoutMs,
    gate,
    onStreamClosed: () => signals.check.notify(),
    onWatcherStatus: () => {
      signals.watcherNotified.notify();
      signals.check.notify();
    },
  });

  const round = createRegistrationRound({
    declaration,
    mode,
    kubeletSocket,
    socketPath,
    apiVersions: options.apiVersions,
    registerTimeoutMs: options.registerTimeoutMs,
    debounceMs: options.debounceMs,
    shutdownTimeoutMs: options.shutdownTimeoutMs,
    logger,
    gate,
    state,
    socket,
    signals,
  });

  const onSocketDirEvent = (name: string | null): void => {
    if (name === null || name === socketName) signals.check.notify();
  };
  const onKubeletDirEvent = (name: string | null): void => {
    if (name === null || name === KubeletSocketName) {
      signals.kubeletChanged.notify();
      signals.check.notify();
    }
  };

  return {
    name: resource,
    start() {
      if (loop !== undefined) return;
      unsubscribeWatchers.push(options.kubeletDirWatcher.subscribe(onKubeletDirEvent));
      unsubscribeWatchers.push(options.socketDirWatcher.subscribe(onSocketDirEvent));
      unsubscribeSource = followDeviceSource({
        resource,
        source: declaration.source,
        store,
        clock,
        logger,
        emit,
      });
      loop = runRegistrationLoop({
        resource,
        socketPath,
        mode,
        clock,
        logger,
        emit,
        backoff: options.backoff,
        maxAttempts: options.maxAttempts,
        gate,
        state,
        round,
      }).catch((error: unknown) => {
        logger.error({ resource, err: error }, 'resource lifecycle failed');
      });
    },
    async stop() {
      gate.stop();
      unsubscribeSource?.();
      unsubscribeSource = undefined;
      for (const unsubscribe of unsubscribeWatchers.splice(0)) unsubscribe();
      await loop;
      await socket.close(
        options.shutdownTimeoutMs,
        shutdownAdvertisement(options.advertiseOnShutdown, store.snapshot()),
      );
      await unlink(socketPath).catch(() => undefined);
      state.set('stopped', 'shut down');
    },
    poll() {
      signals.kubeletChanged.notify();
      signals.check.notify();
    },
    status() {
      const apiVersion = round.apiVersion();
      return {
        name: resource,
        state: state.current(),
        socketPath,
        ...(apiVersion !== undefined ? { apiVersion } : {}),
        devices: [...store.devices().values()],
        openStreams: socket.server()?.openStreams() ?? 0,
      };
    },
  };
}
