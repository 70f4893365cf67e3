import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer } from '../../api-server/api-server';
import type { ObjectStore } from '../../api-server/object-store';
import type { DraApiServerConnection } from '../../dra/dra-api-client';
import type { DraRegisteredEvent } from '../../dra/dra-events';
import { createKubeletSim } from '../../kubelet-sim';
import type { KubeletSim } from '../../kubelet-sim-types';
import { createDraCheckApi, type DraCheckApi } from './dra-check-api';
import { draCheckCatalog } from './dra-check-catalog';
import type { DraCheckResults } from './dra-check-results';
import type { DraConformanceOptions } from './dra-conformance-options';
import { connectDraPlugin, type DraPluginConnection } from './registration-checks';
import { createSimEventRecorder, type SimEventRecorder } from './sim-event-recorder';
import type { PublishedDevice } from './slice-checks';

const defaultPatienceMs = 10_000;

/** What every group of DRA checks works with: settings, the API server, the kubelet and its events. */
export interface DraSuiteBase {
  readonly options: DraConformanceOptions;
  readonly driver: string;
  readonly nodeName: string;
  readonly namespace: string;
  readonly patienceMs: number;
  readonly publishTimeoutMs: number;
  readonly callTimeoutMs: number;
  readonly registrationTimeoutMs: number;
  readonly catalog: typeof draCheckCatalog;
  readonly results: DraCheckResults;
  readonly connection: DraApiServerConnection;
  readonly api: DraCheckApi;
  readonly sim: KubeletSim;
  readonly events: SimEventRecorder;
  /** The storage of the suite's own API server, for the scheduler checks; absent with an external one. */
  readonly store: ObjectStore | undefined;
  /** Aborted when the run ends: waits stop. */
  readonly signal: AbortSignal;
  /** Adds work done when the run ends, the latest first. */
  onCleanup(cleanup: () => Promise<void> | void): void;
}

/** The suite once the driver registered: its latest registration and the devices it published. */
export interface DraSuite extends DraSuiteBase {
  /** The driver's latest registration; groups that see it register again update it. */
  registered: DraRegisteredEvent;
  devices: PublishedDevice[];
}

/** A direct connection to the driver's registered endpoint, for the checks that call it themselves. */
export const connectRegisteredPlugin = (suite: DraSuite): DraPluginConnection =>
  connectDraPlugin(suite.driver, suite.registered.endpoint, suite.registered.service);

/** Starts (or uses) the API server and starts the simulated kubelet with DRA on, recording its events. */
export async function startDraSuite(setup: {
  readonly options: DraConformanceOptions;
  readonly results: DraCheckResults;
  readonly signal: AbortSignal;
  readonly onCleanup: (cleanup: () => Promise<void> | void) => void;
}): Promise<DraSuiteBase> {
  const { options, onCleanup } = setup;
  const nodeName = options.nodeName ?? 'kubelet-sim-node';
  const callTimeoutMs = options.callTimeoutMs ?? 45_000;
  let connection = options.apiServer;
  let store: ObjectStore | undefined;
  if (connection === undefined) {
    const server = await createApiServer({
      nodes: [nodeName],
      ...(options.apiServerPort === undefined ? {} : { port: options.apiServerPort }),
    });
    onCleanup(() => server.close());
    connection = { url: server.url };
    store = server.store;
  }
  let dir = options.dir;
  if (dir === undefined) {
    const temporary = mkdtempSync(join(tmpdir(), 'kubelet-sim-dra-'));
    dir = temporary;
    onCleanup(() => rmSync(temporary, { recursive: true, force: true }));
  }
  const sim = await createKubeletSim({
    dir,
    dra: {
      pluginsRegistryDir: options.pluginsRegistryDir,
      apiServer: connection,
      nodeName,
      callTimeoutMs,
      podSyncRetryMs: 200,
    },
  });
  onCleanup(() => sim.close());
  const events = createSimEventRecorder({ events: sim.events, signal: setup.signal });
  onCleanup(() => events.close());
  return {
    options,
    driver: options.driver,
    nodeName,
    namespace: options.namespace ?? 'default',
    patienceMs: options.patienceMs ?? defaultPatienceMs,
    publishTimeoutMs: options.publishTimeoutMs ?? defaultPatienceMs,
    callTimeoutMs,
    registrationTimeoutMs: options.registrationTimeoutMs ?? 30_000,
    catalog: draCheckCatalog,
    results: setup.results,
    connection,
    api: createDraCheckApi(connection),
    sim,
    events,
    store,
    signal: setup.signal,
    onCleanup,
  };
}
