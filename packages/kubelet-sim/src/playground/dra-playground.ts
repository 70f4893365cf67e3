import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '@kdp/base';
import { type ApiServer, createApiServer, type ResourceApiVersion } from '../api-server/api-server';
import type { ObjectStore } from '../api-server/object-store';
import { createKubeletSim } from '../kubelet-sim';
import type { KubeletSim } from '../kubelet-sim-types';
import { createDeviceSelectorCompiler } from '../scheduler/cel/device-selector-compiler';
import { createApiFaults, type ApiFaults } from './api-faults';
import { createDeviceTaintEviction } from './device-taint-eviction';
import { createScheduler, type Scheduler, type SchedulerEvent } from '../scheduler/scheduler';
import { createNodeKubelet, type NodeKubelet } from './node-kubelet';
import { playgroundNodes, type PlaygroundNodeLayout } from './playground-nodes';

/** Options of {@link createDraPlayground}. */
export interface DraPlaygroundOptions {
  /** Where DRA drivers register (the first node's plugin-watcher directory; node i uses `<dir>/<node>`). */
  readonly pluginsRegistryDir: string;
  /** Where each node's kubelet keeps its sockets and checkpoints (`<stateDir>/<node>`). */
  readonly stateDir: string;
  /** The first node's name; default `kubelet-sim-node`. Node i (2…) is `<nodeName>-<i>`. */
  readonly nodeName?: string;
  /** How many nodes; default 1. */
  readonly nodes?: number;
  /** API server port on 127.0.0.1; default any free port. */
  readonly apiPort?: number;
  /** The bearer token the API server requires; default a random one. */
  readonly token?: string;
  /** Where the drivers write CDI specs; default `/var/run/cdi`. */
  readonly cdiDir?: string;
  /** The directory standing for /dev, where CDI device nodes must exist; default `/dev`. */
  readonly devRoot?: string;
  /** The first node's pod-resources socket (node i: `<dirname>/<node>/<basename>`); none when absent. */
  readonly podResourcesSocket?: string;
  /** Serve only this resource.k8s.io version (the kubelets read through it too); default every version. */
  readonly resourceApiVersion?: ResourceApiVersion;
  /** Called with every scheduling decision. */
  readonly onSchedulerEvent?: (event: SchedulerEvent) => void;
  /** Time of statuses, events and checkpoints; default the system clock. */
  readonly clock?: Clock;
  /** First pause before a failed pod sync (prepare or container creation) is retried; doubles up to 10 s. Default 1 s. */
  readonly podSyncRetryMs?: number;
}

/** One node of the playground. */
export interface DraPlaygroundNode extends PlaygroundNodeLayout {
  /** The node's simulated kubelet (plugin watcher, DRA manager, pod-resources) and its events. */
  readonly sim: KubeletSim;
  /** The node's pod side. */
  readonly kubelet: NodeKubelet;
}

/** A running DRA playground: an API server, the scheduler, a kubelet per node. */
export interface DraPlayground {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** The bearer token the API server requires. */
  readonly token: string;
  /** The PEM of the API server's certificate, which is its own CA. */
  readonly caData: string;
  /** The API server's storage (no auth), for tests and in-process drivers. */
  readonly store: ObjectStore;
  /** The nodes, the first one `nodeName`. */
  readonly nodes: readonly DraPlaygroundNode[];
  /** The scheduler and resourceclaim controller. */
  readonly scheduler: Scheduler;
  /** Fault injection for chaos tests: conflict storms on the API server's writes. */
  readonly faults: ApiFaults;
  /**
   * Restarts the API server: every connection and watch ends, then the same storage is served again on the same
   * port with the same certificate.
   */
  restartApiServer(): Promise<void>;
  /** Stops the scheduler, the kubelets and the API server (claims stay prepared, as when the kubelets stop). */
  close(): Promise<void>;
}

const maxRetryMs = 10_000;

/** Starts one node: a simulated kubelet with DRA on and its pod side (which registers the Ready Node). */
async function startNode(
  layout: PlaygroundNodeLayout,
  api: ApiServer,
  token: string,
  options: DraPlaygroundOptions & { clock: Clock; retryMs: number },
): Promise<DraPlaygroundNode> {
  // The DRA manager's active pods are the pod side's, once it runs (until then it reconciles nothing).
  const podSide: { kubelet?: NodeKubelet } = {};
  const sim = await createKubeletSim({
    dir: layout.kubeletDir,
    clock: options.clock,
    ...(layout.podResourcesSocket === undefined ? {} : { podResourcesSocket: layout.podResourcesSocket }),
    dra: {
      pluginsRegistryDir: layout.pluginsRegistryDir,
      apiServer: {
        url: api.url,
        token,
        ...(api.caData === undefined ? {} : { caData: api.caData }),
        ...(options.resourceApiVersion === undefined
          ? {}
          : { resourceApiVersion: options.resourceApiVersion }),
      },
      nodeName: layout.name,
      podSyncRetryMs: options.retryMs,
      podSyncMaxRetryMs: maxRetryMs,
      activePods: () => podSide.kubelet?.activePods(),
    },
  });
  // As a kubelet, it registers its Node and then deletes the node's ResourceSlices (its start wipe waits for the
  // Node): once this resolves, a driver that publishes keeps its slices.
  const wiped = sim.waitFor('slices-deleted', (e) => e.reason === 'kubelet-start', 30_000);
  const kubelet = createNodeKubelet({
    store: api.store,
    sim,
    nodeName: layout.name,
    cdiDir: options.cdiDir ?? '/var/run/cdi',
    devRoot: options.devRoot ?? '/dev',
    clock: options.clock,
    retryMs: options.retryMs,
    maxRetryMs,
  });
  podSide.kubelet = kubelet;
  try {
    await wiped;
  } catch (err) {
    kubelet.close();
    await sim.close();
    throw err;
  }
  return { ...layout, sim, kubelet };
}

/**
 * Starts the DRA playground: the API server over HTTPS with a bearer token (CEL selectors checked by the
 * scheduler's compiler), the scheduler and resourceclaim controller, the device taint eviction controller, and for
 * each node a Ready Node object and
 * a kubelet (plugin watcher, DRA manager, pod side, pod-resources).
 */
export async function createDraPlayground(options: DraPlaygroundOptions): Promise<DraPlayground> {
  const clock = options.clock ?? systemClock;
  const token = options.token ?? randomBytes(24).toString('hex');
  const layouts = playgroundNodes({
    nodeName: options.nodeName ?? 'kubelet-sim-node',
    count: options.nodes ?? 1,
    pluginsRegistryDir: options.pluginsRegistryDir,
    podResourcesSocket: options.podResourcesSocket,
    stateDir: options.stateDir,
  });
  const compiler = createDeviceSelectorCompiler();
  const faults = createApiFaults();
  const apiOptions = {
    token,
    clock,
    tls: true,
    refuse: faults.refuse,
    validateCel: (expression: string) => {
      const result = compiler.compile(expression);
      return result.ok ? undefined : result.message;
    },
    ...(options.resourceApiVersion === undefined
      ? {}
      : { resourceApiVersions: [options.resourceApiVersion] }),
  };
  let api = await createApiServer({
    ...apiOptions,
    ...(options.apiPort === undefined ? {} : { port: options.apiPort }),
  });
  const restartApiServer = async (): Promise<void> => {
    const { store, cert } = api;
    await api.close();
    api = await createApiServer({
      ...apiOptions,
      store,
      ...(cert === undefined ? {} : { cert }),
      port: Number(new URL(api.url).port),
    });
  };
  const scheduler = createScheduler({
    store: api.store,
    compiler,
    clock,
    ...(options.onSchedulerEvent === undefined ? {} : { onEvent: options.onSchedulerEvent }),
  });
  // kube-controller-manager's part: pods on devices with a NoExecute taint they do not tolerate are evicted.
  const eviction = createDeviceTaintEviction({ store: api.store, clock });
  const nodes: DraPlaygroundNode[] = [];
  const close = async (): Promise<void> => {
    scheduler.close();
    eviction.close();
    for (const node of nodes.splice(0)) {
      node.kubelet.close();
      await node.sim.close();
    }
    await api.close();
  };
  try {
    const settings = { ...options, clock, retryMs: options.podSyncRetryMs ?? 1000 };
    const started = await Promise.allSettled(
      layouts.map((layout) => startNode(layout, api, token, settings)),
    );
    for (const result of started) if (result.status === 'fulfilled') nodes.push(result.value);
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  } catch (err) {
    await close();
    throw err;
  }
  return {
    url: api.url,
    token,
    caData: api.caData ?? '',
    store: api.store,
    nodes,
    scheduler,
    faults,
    restartApiServer,
    close,
  };
}
