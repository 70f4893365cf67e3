import { lstat, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { KubeletSocketName, type Device } from '@kdp/api';
import type { AllocationTransform } from './allocate-containers';
import type { Clock } from '@kdp/base';
import type { DeviceStore } from './device-store';
import { createDeviceStore } from './device-store';
import type { DirectoryWatcher } from './directory-watcher';
import type { LifecycleLogger } from '@kdp/base';
import { createNotifier, type Notifier } from './notifier';
import type { PluginDevice } from './plugin-device';
import type { DevicePluginEvent, ReregistrationReason, ResourceState } from './plugin-events';
import { registerWithKubelet, type ApiVersion } from './registration-client';
import type { ResourceDeclaration } from './resource-declaration';
import { createResourceServer, shutdownAdvertisement, type ResourceServer } from './resource-server';
import { isDialable, waitDialable } from '@kdp/base';
import { removeStaleSockets } from './stale-sockets';

/** Everything one resource's lifecycle needs from its plugin. */
export interface ResourceRuntimeOptions<P> {
  readonly declaration: ResourceDeclaration<P>;
  /** The kubelet's device-plugin directory (kubelet.sock lives here). */
  readonly devicePluginDir: string;
  /** This resource's socket path (in devicePluginDir, or plugins_registry in plugin-watcher mode). */
  readonly socketPath: string;
  readonly mode: 'kubelet' | 'plugin-watcher';
  readonly apiVersions: readonly ApiVersion[];
  readonly clock: Clock;
  readonly logger: LifecycleLogger;
  readonly emit: (event: DevicePluginEvent) => void;
  readonly backoff: (attempt: number) => number;
  readonly maxAttempts: number;
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

class Stopped extends Error {}

interface SocketIdentity {
  readonly ino: number;
  readonly dev: number;
}

async function identity(path: string): Promise<SocketIdentity | undefined> {
  try {
    const stat = await lstat(path);
    return stat.isSocket() ? { ino: stat.ino, dev: stat.dev } : undefined;
  } catch {
    return undefined;
  }
}

const same = (a: SocketIdentity | undefined, b: SocketIdentity | undefined): boolean =>
  a !== undefined && b !== undefined && a.ino === b.ino && a.dev === b.dev;

/** Creates the lifecycle of one resource; nothing happens until `start`. */
export function createResourceRuntime<P>(options: ResourceRuntimeOptions<P>): ResourceRuntime {
  const { declaration, clock, logger, emit, socketPath } = options;
  const resource = declaration.name;
  const kubeletSocket = join(options.devicePluginDir, KubeletSocketName);
  const socketName = basename(socketPath);
  const store: DeviceStore<P> = createDeviceStore<P>(resource);

  let state: ResourceState = 'stopped';
  let stopping = false;
  let loop: Promise<void> | undefined;
  let server: ResourceServer | undefined;
  let bound: SocketIdentity | undefined;
  let kubeletAtRegister: SocketIdentity | undefined;
  let apiVersion: ApiVersion | undefined;
  let watcherStatus: { registered: boolean; error: string } | undefined;
  let unsubscribeSource: (() => void) | undefined;
  const unsubscribeWatchers: Array<() => void> = [];

  const check = createNotifier(); // "look whether we are still registered"
  const kubeletChanged = createNotifier(); // "kubelet.sock may have appeared"
  const watcherNotified = createNotifier(); // plugin-watcher NotifyRegistrationStatus arrived
  const stopController = new AbortController();

  const setState = (to: ResourceState, reason: string): void => {
    if (to === state) return;
    const from = state;
    state = to;
    emit({ type: 'state', resource, at: clock.now(), from, to, reason });
    logger.debug({ resource, from, to, reason }, `${resource}: ${from} → ${to}`);
  };

  const guard = (): void => {
    if (stopping) throw new Stopped();
  };

  /** Waits for `notifier` (or `ms`); throws `Stopped` once the resource is being stopped. */
  const waitFor = async (notifier: Notifier, ms?: number): Promise<boolean> => {
    guard();
    const notified = await notifier.wait(clock, ms, stopController.signal);
    guard();
    return notified;
  };

  const closeServer = async (graceMs: number, lastMessage?: Device[]): Promise<void> => {
    const old = server;
    server = undefined;
    bound = undefined;
    if (old === undefined) return;
    await old.shutdown(graceMs, lastMessage);
  };

  /** P-21/P-22: stop the old server (the kubelet's old stream ends), unlink, bind anew, check it is dialable. */
  const rebind = async (): Promise<void> => {
    // Not awaited: the old listener closes at once (its streams end first); in-flight calls get the grace period.
    void closeServer(options.shutdownTimeoutMs);
    await unlink(socketPath).catch(() => undefined);
    guard();
    const next = createResourceServer({
      declaration,
      store,
      clock,
      logger,
      emit,
      transform: options.transform,
      onStreamClosed: () => {
        if (server === next) check.notify();
      },
      ...(options.mode === 'plugin-watcher'
        ? {
            pluginWatcher: {
              endpoint: socketPath,
              onStatus: (registered: boolean, error: string) => {
                if (server !== next) return;
                watcherStatus = { registered, error };
                watcherNotified.notify();
                check.notify();
              },
            },
          }
        : {}),
    });
    server = next;
    watcherStatus = undefined;
    try {
      await next.bind(socketPath);
      const created = await identity(socketPath);
      await waitDialable(socketPath, clock, async () => same(await identity(socketPath), created));
      bound = created;
    } catch (error) {
      await closeServer(0);
      throw error;
    }
    guard();
    setState('serving', `listening on ${socketPath}`);
  };

  /** Waits until kubelet.sock exists and answers (a plugin may start before the kubelet). */
  const waitForKubelet = async (): Promise<void> => {
    let logged = false;
    for (;;) {
      guard();
      if ((await identity(kubeletSocket)) !== undefined && (await isDialable(kubeletSocket, 500))) return;
      if (!logged) logger.info({ resource, kubeletSocket }, 'waiting for the kubelet socket');
      logged = true;
      await waitFor(kubeletChanged, 1000);
    }
  };

  const register = async (): Promise<ApiVersion> => {
    if (options.mode === 'plugin-watcher') {
      // P-36: the kubelet finds our socket, calls GetInfo, dials us, then reports the outcome.
      while (watcherStatus === undefined) await waitFor(watcherNotified);
      if (!watcherStatus.registered) {
        throw new Error(`the kubelet rejected the plugin-watcher registration: ${watcherStatus.error}`);
      }
      return 'v1beta1';
    }
    kubeletAtRegister = await identity(kubeletSocket);
    return registerWithKubelet({
      kubeletSocket,
      socketPath,
      resource,
      options: {
        preStartRequired: declaration.options?.preStartRequired === true,
        getPreferredAllocationAvailable: declaration.options?.getPreferredAllocationAvailable === true,
      },
      timeoutMs: options.registerTimeoutMs,
      versions: options.apiVersions,
    });
  };

  /** Looks at every signal; returns why the registration is lost, or undefined while it holds. */
  const diagnose = async (): Promise<ReregistrationReason | undefined> => {
    if (options.mode === 'kubelet') {
      const kubelet = await identity(kubeletSocket);
      if (kubelet === undefined) return 'kubelet-gone';
      if (!same(kubelet, kubeletAtRegister)) return 'kubelet-restarted';
    } else if (watcherStatus?.registered === false) {
      return 'rejected-by-kubelet';
    }
    if (!same(await identity(socketPath), bound)) return 'socket-deleted';
    const current = server;
    if (current !== undefined && current.streamsOpened() > 0 && current.openStreams() === 0)
      return 'stream-cancelled';
    return undefined;
  };

  /** Debounced: every signal asks for a check; a burst (socket deleted + kubelet.sock created) becomes one. */
  const waitForDisconnect = async (): Promise<ReregistrationReason> => {
    for (;;) {
      await waitFor(check);
      if (options.debounceMs > 0) await waitFor(createNotifier(), options.debounceMs);
      const reason = await diagnose();
      if (reason !== undefined) return reason;
    }
  };

  const run = async (): Promise<void> => {
    let reason: ReregistrationReason | undefined;
    let everRegistered = false;
    let leftAt = clock.now();
    let attempt = 0;
    const dir = join(socketPath, '..');
    for (const path of await removeStaleSockets(dir, socketPath)) {
      logger.info({ resource, path }, 'removed a stale socket of a dead instance');
    }
    while (!stopping) {
      try {
        // Bind only once the kubelet is there: a starting kubelet deletes every socket in the directory (P-2).
        if (options.mode === 'kubelet') await waitForKubelet();
        await rebind();
        setState('registering', reason ?? 'first registration');
        apiVersion = await register();
        guard();
        attempt = 0;
        setState('registered', `registered with API ${apiVersion}`);
        emit({
          type: 'registered',
          resource,
          at: clock.now(),
          endpoint: socketName,
          apiVersion,
          mode: options.mode,
          reregistration: everRegistered,
          ...(everRegistered && reason !== undefined ? { reason } : {}),
          durationMs: clock.now() - leftAt,
        });
        logger.info(
          { resource, endpoint: socketName, apiVersion, reason: everRegistered ? reason : undefined },
          everRegistered ? 're-registered with the kubelet' : 'registered with the kubelet',
        );
        everRegistered = true;
        check.notify(); // signals that arrived while registering are looked at now
        reason = await waitForDisconnect();
        leftAt = clock.now();
        setState('disconnected', reason);
        void closeServer(options.shutdownTimeoutMs); // P-21: sever the old stream before anything else
        logger.warn({ resource, reason }, 'registration lost; registering again');
      } catch (error) {
        if (stopping || error instanceof Stopped) break;
        attempt += 1;
        const message = error instanceof Error ? error.message : String(error);
        if (attempt >= options.maxAttempts) {
          await closeServer(options.shutdownTimeoutMs);
          setState('stopped', `gave up after ${attempt} attempts: ${message}`);
          emit({ type: 'gave-up', resource, at: clock.now(), attempts: attempt, message });
          logger.error({ resource, attempts: attempt, message }, 'giving up registering');
          return;
        }
        const retryInMs = options.backoff(attempt);
        emit({ type: 'register-failed', resource, at: clock.now(), attempt, message, retryInMs });
        logger.warn({ resource, attempt, retryInMs, message }, 'registration failed; retrying');
        if (everRegistered) reason ??= 'registration-failed';
        setState('backoff', message);
        try {
          // A kubelet coming back cuts the wait short.
          await waitFor(kubeletChanged, retryInMs);
        } catch {
          break;
        }
      }
    }
  };

  const onSocketDirEvent = (name: string | null): void => {
    if (name === null || name === socketName) check.notify();
  };
  const onKubeletDirEvent = (name: string | null): void => {
    if (name === null || name === KubeletSocketName) {
      kubeletChanged.notify();
      check.notify();
    }
  };

  return {
    name: resource,
    start() {
      if (loop !== undefined) return;
      unsubscribeWatchers.push(options.kubeletDirWatcher.subscribe(onKubeletDirEvent));
      unsubscribeWatchers.push(options.socketDirWatcher.subscribe(onSocketDirEvent));
      unsubscribeSource = declaration.source.subscribe((list) => {
        const { changed, warnings } = store.set(list);
        for (const warning of warnings) logger.warn({ resource }, warning);
        if (!changed) return;
        const devices = [...store.devices().values()];
        const healthy = devices.filter((d) => d.health === 'Healthy').length;
        emit({
          type: 'devices',
          resource,
          at: clock.now(),
          devices,
          healthy,
          unhealthy: devices.length - healthy,
          warnings,
        });
      });
      loop = run().catch((error: unknown) => {
        logger.error({ resource, err: error }, 'resource lifecycle failed');
      });
    },
    async stop() {
      stopping = true;
      stopController.abort();
      unsubscribeSource?.();
      unsubscribeSource = undefined;
      for (const unsubscribe of unsubscribeWatchers.splice(0)) unsubscribe();
      await loop;
      await closeServer(
        options.shutdownTimeoutMs,
        shutdownAdvertisement(options.advertiseOnShutdown, store.snapshot()),
      );
      await unlink(socketPath).catch(() => undefined);
      setState('stopped', 'shut down');
    },
    poll() {
      kubeletChanged.notify();
      check.notify();
    },
    status: () => ({
      name: resource,
      state,
      socketPath,
      ...(apiVersion !== undefined ? { apiVersion } : {}),
      devices: [...store.devices().values()],
      openStreams: server?.openStreams() ?? 0,
    }),
  };
}
