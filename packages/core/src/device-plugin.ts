import { randomBytes } from 'node:crypto';
import { DevicePluginPath, PluginsRegistryPath, V1alphaVersion, Version } from '@kdp/api';
import type { AllocationTransform } from './allocate-containers';
import { createBackoff, type BackoffOptions } from '@kdp/base';
import { systemClock, type Clock, type TimerHandle } from '@kdp/base';
import { createDirectoryWatcher, type DirectoryWatcher } from './directory-watcher';
import { createEventHub } from './event-hub';
import { silentLogger, type LifecycleLogger } from '@kdp/base';
import type { DevicePluginEvent } from './plugin-events';
import type { ApiVersion } from './registration-client';
import {
  checkDeclaration,
  type AnyResourceDeclaration,
  type ResourceDeclaration,
} from './resource-declaration';
import { createResourceRuntime, type ResourceRuntime, type ResourceStatus } from './resource-runtime';
import { socketPath } from './socket-path';

/** Options of {@link createDevicePlugin}. */
export interface DevicePluginOptions {
  /** The resources served from the start (more can be added with `addResource`). */
  readonly resources?: readonly AnyResourceDeclaration[];
  /** The kubelet's device-plugin directory (default /var/lib/kubelet/device-plugins). */
  readonly devicePluginDir?: string;
  /** This process's instance ID in socket names, `[A-Za-z0-9_.]{1,32}` (default: 8 random hex digits). */
  readonly instance?: string;
  /** `kubelet`: call Register (default). `plugin-watcher`: put the socket in plugins_registry (P-36). */
  readonly registration?: 'kubelet' | 'plugin-watcher';
  /** Directory for plugin-watcher sockets (default /var/lib/kubelet/plugins_registry). */
  readonly pluginsRegistryDir?: string;
  /** API versions to register with, in order; v1alpha2 is tried only after UNIMPLEMENTED (default both). */
  readonly apiVersions?: readonly ApiVersion[];
  /** pino-compatible logger (default: silent). */
  readonly logger?: LifecycleLogger;
  readonly clock?: Clock;
  /** Retry delays for registration; `maxAttempts` gives up after that many failures (default: never). */
  readonly backoff?: BackoffOptions & { readonly maxAttempts?: number };
  /** Stop when this aborts (signals are the caller's: the plugin runtime owns SIGTERM and SIGINT). */
  readonly signal?: AbortSignal;
  /** How long in-flight calls may finish on shutdown before the server is forced down (default 5000 ms). */
  readonly shutdownTimeoutMs?: number;
  /**
   * The slow lstat fallback poll for kubelet restarts (default 2000 ms), while a socket directory is not watched;
   * while inotify watches them, it runs at five times this period (a safety net that costs nothing at idle).
   */
  readonly restartPollMs?: number;
  /** Watch the socket directories with fs.watch (default true); off leaves the poll and stream signals. */
  readonly watchDirectories?: boolean;
  /** Signals closer together than this become one re-registration (default 10 ms). */
  readonly debounceMs?: number;
  /** Deadline of one Register call (default 15 000 ms: the kubelet may take 10 s to dial back, P-11). */
  readonly registerTimeoutMs?: number;
  /** What the kubelet is told last on shutdown: nothing (default), an empty list, or every device unhealthy. */
  readonly advertiseOnShutdown?: 'none' | 'empty' | 'unhealthy';
  /** Applied to every container allocation of every resource (e.g. to add CDI device names to each). */
  readonly transformAllocation?: AllocationTransform;
}

/** A running (or runnable) device plugin serving one or more resources. */
export interface DevicePlugin {
  /** Starts every resource's lifecycle; resolves at once (registration continues in the background). */
  start(): Promise<void>;
  /** Ends streams, stops servers within the deadline, unlinks sockets; idempotent. */
  stop(): Promise<void>;
  /** Adds a resource at run time (validated like at construction); started at once if the plugin runs. */
  addResource<P>(declaration: ResourceDeclaration<P>): void;
  /** Stops and removes one resource; the others are not touched. */
  removeResource(name: string): Promise<void>;
  /** The state of every resource. */
  resources(): ResourceStatus[];
  /** True when every resource is registered (readiness). */
  ready(): boolean;
  /** Listens to every event; returns the unsubscribe function. */
  on(listener: (event: DevicePluginEvent) => void): () => void;
  /** Iterates the events until `signal` aborts or the plugin stops. */
  events(signal?: AbortSignal): AsyncIterableIterator<DevicePluginEvent>;
  /** Resolves with the first later event matching `predicate`; rejects after `timeoutMs` (default 30 s). */
  waitFor(predicate: (event: DevicePluginEvent) => boolean, timeoutMs?: number): Promise<DevicePluginEvent>;
  /** Resolves once the plugin has stopped. */
  readonly stopped: Promise<void>;
}

const INSTANCE = /^[A-Za-z0-9_.]{1,32}$/;

/** Stands in for a watcher when watching is switched off: nothing is ever reported. */
const unwatchedDirectory: DirectoryWatcher = {
  subscribe: () => () => undefined,
  refresh: async () => undefined,
  watching: () => false,
  close: () => undefined,
};

/** Creates a device plugin; bad resource names, bad hook/option pairs and too-long socket paths throw here. */
export function createDevicePlugin(options: DevicePluginOptions = {}): DevicePlugin {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const mode = options.registration ?? 'kubelet';
  const devicePluginDir = options.devicePluginDir ?? DevicePluginPath;
  const socketDir =
    mode === 'plugin-watcher' ? (options.pluginsRegistryDir ?? PluginsRegistryPath) : devicePluginDir;
  const instance = options.instance ?? randomBytes(4).toString('hex');
  if (!INSTANCE.test(instance)) {
    throw new Error(
      `instance ID ${JSON.stringify(instance)} must be 1-32 characters of A-Z, a-z, 0-9, _ and .`,
    );
  }
  const apiVersions = options.apiVersions ?? [Version, V1alphaVersion];
  const backoff = createBackoff(options.backoff);
  const maxAttempts = options.backoff?.maxAttempts ?? Number.POSITIVE_INFINITY;
  const hub = createEventHub<DevicePluginEvent>((error) =>
    logger.error({ err: error }, 'an event listener threw'),
  );
  const runtimes = new Map<string, ResourceRuntime>();
  let running = false;
  let stopping: Promise<void> | undefined;
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let kubeletDirWatcher: DirectoryWatcher | undefined;
  let socketDirWatcher: DirectoryWatcher | undefined;
  let pollTimer: TimerHandle | undefined;
  const restartPollMs = options.restartPollMs ?? 2000;

  const makeRuntime = <P>(declaration: ResourceDeclaration<P>): ResourceRuntime => {
    checkDeclaration(declaration);
    if (runtimes.has(declaration.name)) throw new Error(`resource ${declaration.name} is declared twice`);
    const path = socketPath(socketDir, declaration.name, instance);
    return createResourceRuntime({
      declaration,
      devicePluginDir,
      socketPath: path,
      mode,
      apiVersions,
      clock,
      logger,
      emit: hub.emit,
      backoff,
      maxAttempts,
      // Filled in by start(); a runtime is only started after that.
      get kubeletDirWatcher() {
        return kubeletDirWatcher as DirectoryWatcher;
      },
      get socketDirWatcher() {
        return socketDirWatcher as DirectoryWatcher;
      },
      debounceMs: options.debounceMs ?? 10,
      registerTimeoutMs: options.registerTimeoutMs ?? 15_000,
      shutdownTimeoutMs: options.shutdownTimeoutMs ?? 5000,
      advertiseOnShutdown: options.advertiseOnShutdown ?? 'none',
      transform: options.transformAllocation,
    });
  };

  for (const declaration of options.resources ?? []) {
    const runtime = makeRuntime(declaration);
    runtimes.set(runtime.name, runtime);
  }

  /** The fallback poll's next period: slow while inotify covers both directories. */
  const pollPeriod = (): number =>
    kubeletDirWatcher?.watching() === true && socketDirWatcher?.watching() === true
      ? restartPollMs * 5
      : restartPollMs;
  const poll = (): void => {
    void kubeletDirWatcher?.refresh();
    if (socketDirWatcher !== kubeletDirWatcher) void socketDirWatcher?.refresh();
    for (const runtime of runtimes.values()) runtime.poll();
    pollTimer = clock.setTimeout(poll, pollPeriod());
  };

  const plugin: DevicePlugin = {
    async start() {
      if (running || stopping) return;
      running = true;
      const watchDir = (path: string): DirectoryWatcher =>
        options.watchDirectories === false ? unwatchedDirectory : createDirectoryWatcher(path);
      kubeletDirWatcher = watchDir(devicePluginDir);
      socketDirWatcher = socketDir === devicePluginDir ? kubeletDirWatcher : watchDir(socketDir);
      pollTimer = clock.setTimeout(poll, restartPollMs);
      if (options.signal) {
        const onAbort = (): void => void plugin.stop();
        if (options.signal.aborted) onAbort();
        else options.signal.addEventListener('abort', onAbort, { once: true });
      }
      for (const runtime of runtimes.values()) runtime.start();
      logger.info({ resources: [...runtimes.keys()], instance, mode }, 'device plugin started');
    },
    stop() {
      stopping ??= (async () => {
        if (pollTimer !== undefined) clock.clearTimeout(pollTimer);
        await Promise.all([...runtimes.values()].map((runtime) => runtime.stop()));
        kubeletDirWatcher?.close();
        socketDirWatcher?.close();
        running = false;
        logger.info({}, 'device plugin stopped');
        hub.close();
        resolveStopped();
      })();
      return stopping;
    },
    addResource(declaration) {
      if (stopping) throw new Error(`cannot add ${declaration.name}: the plugin is stopping`);
      const runtime = makeRuntime(declaration);
      runtimes.set(runtime.name, runtime);
      hub.emit({ type: 'resource-added', resource: runtime.name, at: clock.now() });
      if (running) runtime.start();
    },
    async removeResource(name) {
      const runtime = runtimes.get(name);
      if (runtime === undefined) throw new Error(`resource ${name} is not served by this plugin`);
      runtimes.delete(name);
      await runtime.stop();
      hub.emit({ type: 'resource-removed', resource: name, at: clock.now() });
    },
    resources: () => [...runtimes.values()].map((runtime) => runtime.status()),
    ready: () => [...runtimes.values()].every((runtime) => runtime.status().state === 'registered'),
    on: (listener) => hub.subscribe(listener),
    events: (signal) => hub.iterate(signal),
    waitFor(predicate, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          unsubscribe();
          reject(new Error(`no matching device-plugin event within ${timeoutMs} ms`));
        }, timeoutMs);
        const unsubscribe = hub.subscribe((event) => {
          if (!predicate(event)) return;
          clearTimeout(timer);
          unsubscribe();
          resolve(event);
        });
      });
    },
    stopped,
  };
  return plugin;
}
