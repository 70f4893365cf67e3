import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { draV1 } from '@kdp/api';
import { createApiServer, type ApiServer } from '../../api-server/api-server';
import type { DraApiServerConnection } from '../../dra/dra-api-client';
import type { DraRegisteredEvent, PreparedClaim, PreparedDevice } from '../../dra/dra-events';
import { goErrorString } from '../../grpc-util';
import { createKubeletSim } from '../../kubelet-sim';
import type { SimEvent } from '../../sim-events';
import { type CheckDefinition, checkResult, seconds, strictCheck } from '../check-catalog';
import type { ConformanceCheck, ConformanceReport } from '../conformance-check';
import { cdiDevicesIn, checkCdiIds, checkCdiSpec, isQualifiedCdiName } from './cdi-checks';
import { type ApiObject, createDraCheckApi, type DraCheckApi } from './dra-check-api';
import { draCheckCatalog, plannedDraChecks } from './dra-check-catalog';
import {
  checkPluginInfo,
  checkServices,
  connectDraPlugin,
  type DraPluginConnection,
  probeRegistration,
} from './registration-checks';
import { checkSlices, poolsComplete, publishedDevices, type PublishedDevice } from './slice-checks';

/** What {@link DraConformanceOptions.onReady} is told once the suite's kubelet and API server are up. */
export interface DraConformanceReady {
  /** The API server the driver must publish to and read claims from. */
  readonly apiServer: DraApiServerConnection;
  readonly nodeName: string;
}

/** Options of {@link runDraConformance}. */
export interface DraConformanceOptions {
  /** The driver name to check (GetInfo `name`, `spec.driver` of its slices). */
  readonly driver: string;
  /** The plugin-watcher directory the driver registers in. */
  readonly pluginsRegistryDir: string;
  /** An API server to use; absent, the suite starts kubelet-sim's own (`createApiServer`) with the node in it. */
  readonly apiServer?: DraApiServerConnection;
  /** Port of the built-in API server on 127.0.0.1 (default any free port). */
  readonly apiServerPort?: number;
  /** This node's name (default `kubelet-sim-node`). */
  readonly nodeName?: string;
  /** Namespace of the ResourceClaim the suite creates (default `default`). */
  readonly namespace?: string;
  /** The CDI directory the driver was given; absent, `cdi-spec` is skipped. */
  readonly cdiDir?: string;
  /** The simulated kubelet's own directory (kubelet.sock, checkpoints); default a temporary directory. */
  readonly dir?: string;
  /** How long to wait for the driver's registration (default 30 s). */
  readonly registrationTimeoutMs?: number;
  /** How long the driver has to publish complete pools, at start and after a kubelet restart (default 10 s). */
  readonly publishTimeoutMs?: number;
  /** How long another slow step (a connection, a re-prepare, a health message) is waited for (default 10 s). */
  readonly patienceMs?: number;
  /** NodePrepareResources / NodeUnprepareResources deadline (default the kubelet's 45 s). */
  readonly callTimeoutMs?: number;
  /**
   * Restarts the driver (tests pass one; the CLI has none, so `plugin-restart` is skipped there). It resolves
   * once the restart was started; the suite then waits for the driver to come back.
   */
  readonly restartPlugin?: () => Promise<void>;
  /**
   * Reboots the node as far as the driver can tell (tests pass one; the CLI cannot, so `node-reboot` is skipped
   * there): stop the driver, give its procfs a new boot ID, empty the CDI directory (a tmpfs /var/run/cdi is gone
   * after a reboot; the driver's checkpoint stays) and start the driver again. The suite then restarts its
   * kubelet (its checkpoint kept, as on disk), waits for the driver and prepares the claim again.
   */
  readonly rebootNode?: (() => Promise<void>) | undefined;
  /** Every warning of a recommended check becomes a failure. */
  readonly strict?: boolean;
  /** Called with each check as it completes, for live output. */
  readonly onCheck?: (check: ConformanceCheck) => void;
  /**
   * Called once the API server and the simulated kubelet run (and the kubelet deleted the node's slices, as it
   * does at start), before the suite waits for the driver: start the driver here.
   */
  readonly onReady?: (ready: DraConformanceReady) => void | Promise<void>;
}

const defaultPatienceMs = 10_000;

/** The devices of a prepare result, normalized for comparison. */
const deviceKey = (devices: readonly PreparedDevice[]): string =>
  JSON.stringify(
    devices
      .map((d) => ({
        pool: d.poolName,
        device: d.deviceName,
        cdi: [...d.cdiDeviceIds].sort(),
        requests: [...d.requestNames].sort(),
        share: d.shareId ?? '',
      }))
      .sort((a, b) => `${a.pool}/${a.device}`.localeCompare(`${b.pool}/${b.device}`)),
  );

const describe = (devices: readonly PreparedDevice[]): string =>
  devices.length === 0
    ? 'no devices'
    : devices.map((d) => `${d.poolName}/${d.deviceName} [${d.cdiDeviceIds.join(', ')}]`).join(', ');

const fromResponse = (
  driver: string,
  result: draV1.NodePrepareResourceResponse | undefined,
): PreparedDevice[] =>
  (result?.devices ?? []).map((d) => ({
    driver,
    requestNames: d.requestNames,
    poolName: d.poolName,
    deviceName: d.deviceName,
    cdiDeviceIds: d.cdiDeviceIds,
    ...(d.shareId === undefined ? {} : { shareId: d.shareId }),
  }));

const errorText = (err: unknown): string => goErrorString(err);

/**
 * Runs the DRA conformance suite against the driver named `driver`: starts (or uses) an API server and a
 * simulated kubelet with its DRA manager, waits for the driver's registration through the plugin watcher,
 * then checks registration, ResourceSlice publication, prepare and unprepare with the kubelet's rules, a
 * kubelet restart, a driver restart (when `restartPlugin` is given), a node reboot (when `rebootNode` is given)
 * and health. Each check passes, fails, warns
 * (a recommended practice; a failure when `strict`) or is skipped; the report is `ok` when none failed. The
 * ResourceClaim it creates is deleted again.
 */
export async function runDraConformance(options: DraConformanceOptions): Promise<ConformanceReport> {
  const { driver } = options;
  const strict = options.strict ?? false;
  const nodeName = options.nodeName ?? 'kubelet-sim-node';
  const namespace = options.namespace ?? 'default';
  const patienceMs = options.patienceMs ?? defaultPatienceMs;
  const publishTimeoutMs = options.publishTimeoutMs ?? defaultPatienceMs;
  const callTimeoutMs = options.callTimeoutMs ?? 45_000;
  const catalog = draCheckCatalog;

  const checks: ConformanceCheck[] = [];
  const add = (check: ConformanceCheck): void => {
    const final = strictCheck(check, strict);
    checks.push(final);
    options.onCheck?.(final);
  };
  const pass = (d: CheckDefinition, reason: string): void => add(checkResult(d, 'pass', reason));
  const fail = (d: CheckDefinition, reason: string): void => add(checkResult(d, 'fail', reason));
  const skip = (d: CheckDefinition, reason: string): void => add(checkResult(d, 'skip', reason));
  const skipRest = (reason: string): void => {
    const done = new Set(checks.map((c) => c.id));
    for (const d of plannedDraChecks()) if (!done.has(d.id)) skip(d, reason);
  };
  const report = (): ConformanceReport => ({
    ok: checks.every((c) => c.status !== 'fail'),
    strict,
    resource: driver,
    checks,
  });

  const cleanups: Array<() => Promise<void> | void> = [];
  const stop = new AbortController();
  try {
    let builtIn: ApiServer | undefined;
    if (options.apiServer === undefined) {
      builtIn = await createApiServer({
        nodes: [nodeName],
        ...(options.apiServerPort === undefined ? {} : { port: options.apiServerPort }),
      });
      const server = builtIn;
      cleanups.push(() => server.close());
    }
    const connection = options.apiServer ?? { url: builtIn?.url ?? '' };
    const api = createDraCheckApi(connection);
    let dir = options.dir;
    if (dir === undefined) {
      const temporary = mkdtempSync(join(tmpdir(), 'kubelet-sim-dra-'));
      dir = temporary;
      cleanups.push(() => rmSync(temporary, { recursive: true, force: true }));
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
    cleanups.push(() => sim.close());

    // Every event, numbered, so that a step waits only for what happened after it began.
    const recorded: SimEvent[] = [];
    const waiters = new Set<() => void>();
    const record = (event: SimEvent): void => {
      recorded.push(event);
      for (const wake of [...waiters]) wake();
    };
    sim.events.on('event', record);
    cleanups.push(() => void sim.events.off('event', record));
    const seen = <E extends SimEvent>(
      predicate: (event: SimEvent) => event is E,
      timeoutMs: number,
      from = 0,
    ): Promise<E | undefined> =>
      new Promise((resolve) => {
        const look = (): boolean => {
          const found = recorded.slice(from).find(predicate);
          if (found === undefined) return false;
          done(found);
          return true;
        };
        const done = (result: E | undefined): void => {
          clearTimeout(timer);
          waiters.delete(wake);
          stop.signal.removeEventListener('abort', aborted);
          resolve(result);
        };
        const wake = (): void => void look();
        const aborted = (): void => done(undefined);
        const timer = setTimeout(aborted, Math.max(0, timeoutMs));
        waiters.add(wake);
        stop.signal.addEventListener('abort', aborted, { once: true });
        look();
      });
    const mark = (): number => recorded.length;
    const isEvent =
      <T extends SimEvent['type']>(
        type: T,
        test: (e: Extract<SimEvent, { type: T }>) => boolean = () => true,
      ) =>
      (e: SimEvent): e is Extract<SimEvent, { type: T }> =>
        e.type === type && test(e as Extract<SimEvent, { type: T }>);

    // The kubelet deletes the node's slices at start; waiting for that first keeps the later reads stable.
    const startWipe = await seen(
      isEvent('slices-deleted', (e) => e.reason === 'kubelet-start'),
      patienceMs,
    );
    await options.onReady?.({ apiServer: connection, nodeName });

    // --- registration -------------------------------------------------------------------------------------
    const registrationTimeoutMs = options.registrationTimeoutMs ?? 30_000;
    const outcome = await seen(
      (e): e is Extract<SimEvent, { type: 'dra-registered' | 'register-rejected' }> =>
        (e.type === 'dra-registered' && e.driver === driver) ||
        (e.type === 'register-rejected' && e.resource === driver),
      registrationTimeoutMs,
    );
    if (outcome?.type !== 'dra-registered') {
      const others = [
        ...new Set(
          recorded.flatMap((e) =>
            e.type === 'dra-registered' ? [e.driver] : e.type === 'register-rejected' ? [e.resource] : [],
          ),
        ),
      ].filter((name) => name !== driver);
      fail(
        catalog.registers,
        outcome === undefined
          ? `no DRA driver ${driver} registered in ${options.pluginsRegistryDir} within ${seconds(registrationTimeoutMs)}` +
              `${others.length === 0 ? '' : ` (seen instead: ${others.join(', ')})`}`
          : `the kubelet refused it: ${outcome.message}`,
      );
      skipRest(
        outcome === undefined
          ? 'not run: the driver never registered'
          : 'not run: the kubelet refused the driver',
      );
      return report();
    }
    let registered: DraRegisteredEvent = outcome;
    pass(
      catalog.registers,
      `${registered.service}${registered.healthService === undefined ? '' : ` + ${registered.healthService}`} at ${registered.endpoint}`,
    );
    const probe = await probeRegistration(registered.socketPath, patienceMs);
    if (probe.info === undefined) {
      fail(
        catalog.pluginInfo,
        `GetInfo on ${registered.socketPath} failed: ${probe.infoError ?? 'no answer'}`,
      );
      skip(catalog.supportedServices, 'not run: GetInfo failed');
      skip(catalog.serviceOrder, 'not run: GetInfo failed');
      skip(catalog.registrationStatus, 'not run: GetInfo failed');
    } else {
      add(checkPluginInfo(probe.info, driver));
      for (const check of checkServices(probe.info.supportedVersions)) add(check);
      if (probe.notifyError === undefined) pass(catalog.registrationStatus, 'answered');
      else
        fail(
          catalog.registrationStatus,
          `NotifyRegistrationStatus failed: ${probe.notifyError}; the kubelet then counts the registration as failed and retries it`,
        );
    }
    const up = await seen(
      isEvent('dra-connection', (e) => e.driver === driver && e.connected),
      patienceMs,
    );
    if (up === undefined) {
      fail(
        catalog.endpointServing,
        `no connection to ${registered.endpoint} within ${seconds(patienceMs)}; the kubelet cannot call the driver`,
      );
    } else {
      pass(catalog.endpointServing, `connected after ${Math.max(0, Math.round(up.at - registered.at))} ms`);
    }

    // --- publication --------------------------------------------------------------------------------------
    const nodeUid = await api.getNode(nodeName).then(
      (n) => n.metadata.uid,
      () => undefined,
    );
    const published = await waitForSlices(api, nodeName, driver, publishTimeoutMs, stop.signal);
    let devices: PublishedDevice[] = [];
    if (published.slices.length === 0) {
      fail(
        catalog.publishes,
        `no ResourceSlice with spec.nodeName=${nodeName} and spec.driver=${driver} within ${seconds(publishTimeoutMs)}` +
          `${published.error === undefined ? '' : ` (last API error: ${published.error})`}; the scheduler sees no devices on this node` +
          `${startWipe === undefined || startWipe.count === 0 ? '' : ` (the kubelet deleted ${startWipe.count} slice(s) of the node at its start: a driver publishes again after that)`}`,
      );
      for (const d of [catalog.slicesValid, catalog.poolConsistent, catalog.sliceSize, catalog.sliceOwner]) {
        skip(d, 'not run: no slices');
      }
      skip(catalog.standardAttributes, 'not run: no slices');
    } else {
      devices = publishedDevices(published.slices);
      pass(
        catalog.publishes,
        `${published.slices.length} slice(s), ${devices.length} device(s) after ${published.elapsedMs} ms`,
      );
      for (const check of checkSlices(published.slices, {
        driver,
        node: nodeName,
        ...(nodeUid === undefined ? {} : { nodeUid }),
      }))
        add(check);
    }

    // --- prepare ------------------------------------------------------------------------------------------
    const target = devices.find((d) => d.device !== '');
    const claimName = `kubelet-sim-check-${randomBytes(4).toString('hex')}`;
    const pod = { name: `${claimName}-pod`, namespace, uid: randomUUID() };
    let claim: ApiObject | undefined;
    let setupProblem: string | undefined;
    if (target === undefined) {
      setupProblem = 'not run: no published device to allocate';
    } else {
      try {
        claim = await allocateClaim(api, { namespace, claimName, driver, nodeName, device: target, pod });
        const created = claim;
        cleanups.push(() =>
          api.deleteClaim(namespace, created.metadata.name ?? claimName).catch(() => undefined),
        );
      } catch (err) {
        setupProblem = `not run: the suite could not create an allocated ResourceClaim: ${errorText(err)}`;
      }
    }
    /** The kubelet's own prepare of the pod's claims after event `from`: their devices, or why there are none. */
    const kubeletPrepared = async (
      from: number,
      timeoutMs: number,
    ): Promise<{ devices: PreparedDevice[] } | { problem: string }> => {
      const again = await seen(
        isEvent('dra-prepared', (e) => e.podUid === pod.uid),
        timeoutMs,
        from,
      );
      if (again !== undefined) return { devices: again.claims.flatMap((c: PreparedClaim) => c.devices) };
      const failed = recorded
        .slice(from)
        .filter(isEvent('dra-prepare-failed', (e) => e.podUid === pod.uid))
        .pop();
      return { problem: failed?.message ?? 'no answer' };
    };
    const claimRef = {
      namespace,
      name: claimName,
      uid: claim?.metadata.uid ?? '',
    };
    let prepared: PreparedDevice[] | undefined;
    if (setupProblem === undefined && target !== undefined) {
      try {
        const [result] = await sim.prepareClaims(pod, [claimName]);
        prepared = [...(result?.devices ?? [])];
        const allocated = prepared.filter(
          (d) => d.poolName === target.pool && d.deviceName === target.device,
        );
        if (allocated.length === 0) {
          fail(
            catalog.prepare,
            `claim ${claimName} is allocated ${target.pool}/${target.device}, but the driver prepared ${describe(prepared)}`,
          );
        } else if (allocated.length !== prepared.length) {
          fail(
            catalog.prepare,
            `the driver also prepared devices not allocated to the claim: ${describe(prepared)}`,
          );
        } else {
          pass(catalog.prepare, `${claimName}: ${describe(prepared)}`);
        }
      } catch (err) {
        fail(
          catalog.prepare,
          `${errorText(err)}; the kubelet keeps the pod in ContainerCreating and retries`,
        );
      }
    }
    const plugin = (): DraPluginConnection =>
      connectDraPlugin(driver, registered.endpoint, registered.service);
    if (setupProblem !== undefined) skip(catalog.prepare, setupProblem);
    if (prepared === undefined) {
      const reason = setupProblem ?? 'not run: prepare failed';
      for (const d of [catalog.cdiIds, catalog.cdiSpec, catalog.prepareIdempotent, catalog.wrongUid])
        skip(d, reason);
    } else {
      add(checkCdiIds(prepared));
      add(checkCdiSpec(prepared, options.cdiDir));
      const direct = plugin();
      try {
        try {
          const again = await direct.prepare([claimRef], callTimeoutMs);
          const result = again.claims[claimRef.uid];
          const second = fromResponse(driver, result);
          if (result === undefined)
            fail(catalog.prepareIdempotent, `the second call did not answer claim ${claimRef.uid}`);
          else if (result.error !== '')
            fail(catalog.prepareIdempotent, `the second call failed for the claim: ${result.error}`);
          else if (deviceKey(second) !== deviceKey(prepared))
            fail(
              catalog.prepareIdempotent,
              `first ${describe(prepared)}, then ${describe(second)}; the kubelet calls prepare again after every restart`,
            );
          else pass(catalog.prepareIdempotent, describe(second));
        } catch (err) {
          fail(catalog.prepareIdempotent, `the second call failed: ${errorText(err)}`);
        }
        const wrong = { ...claimRef, uid: randomUUID() };
        try {
          const response = await direct.prepare([claimRef, wrong], callTimeoutMs);
          const good = response.claims[claimRef.uid];
          const bad = response.claims[wrong.uid];
          if (bad === undefined) fail(catalog.wrongUid, `no result for the claim with UID ${wrong.uid}`);
          else if (bad.error === '')
            fail(
              catalog.wrongUid,
              `claim ${claimName} with UID ${wrong.uid} (the object's is ${claimRef.uid}) was prepared: ` +
                `${describe(fromResponse(driver, bad))}; a deleted and re-created claim would get its predecessor's devices`,
            );
          else if (good === undefined || good.error !== '')
            fail(
              catalog.wrongUid,
              `the correct claim beside it ${good === undefined ? 'got no result' : `failed: ${good.error}`}`,
            );
          else pass(catalog.wrongUid, `per-claim error: ${bad.error}`);
        } catch (err) {
          fail(
            catalog.wrongUid,
            `the whole call failed: ${errorText(err)}; one bad claim must not fail the others of the call`,
          );
        }
      } finally {
        direct.close();
      }
    }

    // --- kubelet restart ----------------------------------------------------------------------------------
    const beforeRestart = mark();
    await sim.restart();
    const wiped = await seen(
      isEvent('slices-deleted', (e) => e.reason === 'kubelet-start'),
      patienceMs,
      beforeRestart,
    );
    if (devices.length === 0) {
      skip(catalog.republish, 'not run: the driver published no device before the restart');
    } else if (wiped === undefined) {
      skip(
        catalog.republish,
        `not run: the kubelet could not delete the slices of Node ${nodeName} within ${seconds(patienceMs)}`,
      );
    } else {
      const again = await waitForSlices(api, nodeName, driver, publishTimeoutMs, stop.signal);
      if (again.slices.length === 0) {
        fail(
          catalog.republish,
          `no slice ${seconds(publishTimeoutMs)} after the kubelet deleted ${wiped.count}; the scheduler sees no ` +
            'devices on this node until the driver restarts (watch the slices and publish again)',
        );
      } else if (!poolsComplete(again.slices)) {
        fail(
          catalog.republish,
          `${again.slices.length} slice(s), but a pool is incomplete after ${seconds(publishTimeoutMs)}`,
        );
      } else {
        pass(catalog.republish, `${again.slices.length} slice(s) after ${again.elapsedMs} ms`);
      }
    }
    const rereg = await seen(
      isEvent('dra-registered', (e) => e.driver === driver),
      patienceMs,
      beforeRestart,
    );
    if (rereg !== undefined) registered = rereg;
    if (prepared === undefined) {
      skip(catalog.prepareAfterKubeletRestart, setupProblem ?? 'not run: prepare failed');
    } else {
      const again = await kubeletPrepared(beforeRestart, registrationTimeoutMs + patienceMs);
      if ('problem' in again) {
        fail(
          catalog.prepareAfterKubeletRestart,
          rereg === undefined
            ? 'the driver did not register again after the kubelet restart'
            : `the pod's claim was not prepared again: ${again.problem}`,
        );
      } else if (deviceKey(again.devices) !== deviceKey(prepared)) {
        fail(
          catalog.prepareAfterKubeletRestart,
          `before ${describe(prepared)}, after ${describe(again.devices)}`,
        );
      } else {
        pass(catalog.prepareAfterKubeletRestart, describe(again.devices));
      }
    }

    // --- plugin restart -----------------------------------------------------------------------------------
    if (options.restartPlugin === undefined) {
      skip(
        catalog.pluginRestart,
        'not run: no way to restart the driver (runDraConformance takes a restartPlugin callback; the CLI has none)',
      );
    } else if (prepared === undefined) {
      skip(catalog.pluginRestart, setupProblem ?? 'not run: prepare failed');
    } else {
      const beforePluginRestart = mark();
      await options.restartPlugin();
      const back = await seen(
        (e): e is Extract<SimEvent, { type: 'dra-registered' | 'dra-connection' }> =>
          (e.type === 'dra-registered' && e.driver === driver) ||
          (e.type === 'dra-connection' && e.driver === driver && e.connected),
        patienceMs,
        beforePluginRestart,
      );
      if (back?.type === 'dra-registered') registered = back;
      const direct = plugin();
      try {
        // A driver that neither registered again nor reconnected may still serve its old endpoint.
        await direct.ready(back === undefined ? patienceMs : callTimeoutMs);
        const response = await direct.prepare([claimRef], callTimeoutMs);
        const result = response.claims[claimRef.uid];
        const after = fromResponse(driver, result);
        if (result === undefined || result.error !== '')
          fail(
            catalog.pluginRestart,
            `prepare after the restart: ${result === undefined ? 'no result for the claim' : result.error}; keep a checkpoint`,
          );
        else if (deviceKey(after) !== deviceKey(prepared))
          fail(
            catalog.pluginRestart,
            `before ${describe(prepared)}, after ${describe(after)}; keep a checkpoint`,
          );
        else pass(catalog.pluginRestart, describe(after));
      } catch (err) {
        fail(
          catalog.pluginRestart,
          `prepare after the restart failed: ${errorText(err)}` +
            `${back === undefined ? ` (it neither registered nor reconnected within ${seconds(patienceMs)})` : ''}`,
        );
      } finally {
        direct.close();
      }
    }

    // --- node reboot --------------------------------------------------------------------------------------
    if (options.rebootNode === undefined) {
      skip(
        catalog.nodeReboot,
        'not run: no way to reboot the node (runDraConformance takes a rebootNode callback; the CLI has none)',
      );
    } else if (prepared === undefined) {
      skip(catalog.nodeReboot, setupProblem ?? 'not run: prepare failed');
    } else {
      await options.rebootNode();
      // The kubelet comes up with the node: its checkpoint is on disk, so it prepares the pod's claim again.
      const beforeBoot = mark();
      await sim.restart();
      const before = prepared;
      // A string is the failure's reason; an object the pass's.
      const rebooted = await (async (): Promise<string | { passed: string }> => {
        const back = await seen(
          isEvent('dra-registered', (e) => e.driver === driver),
          registrationTimeoutMs,
          beforeBoot,
        );
        if (back === undefined)
          return `the driver did not register within ${seconds(registrationTimeoutMs)} after the reboot`;
        registered = back;
        const wiped = await seen(
          isEvent('slices-deleted', (e) => e.reason === 'kubelet-start'),
          patienceMs,
          beforeBoot,
        );
        if (wiped !== undefined) {
          const slices = await waitForSlices(api, nodeName, driver, publishTimeoutMs, stop.signal);
          if (!poolsComplete(slices.slices))
            return `no complete pool of slices ${seconds(publishTimeoutMs)} after the reboot`;
        }
        const again = await kubeletPrepared(beforeBoot, patienceMs + callTimeoutMs);
        if ('problem' in again)
          return `the pod's claim was not prepared again after the reboot: ${again.problem}`;
        const after = again.devices;
        if (deviceKey(after) !== deviceKey(before))
          return `before ${describe(before)}, after ${describe(after)}; keep the checkpoint across reboots`;
        if (options.cdiDir === undefined)
          return { passed: `${describe(after)} (no CDI directory given: spec files not looked up)` };
        const defined = cdiDevicesIn(options.cdiDir);
        const missing = after
          .flatMap((d) => d.cdiDeviceIds)
          .filter((id) => isQualifiedCdiName(id) && !defined.has(id));
        if (missing.length > 0)
          return (
            `prepared ${describe(after)}, but no spec file in ${options.cdiDir} defines ${missing.join(', ')}: ` +
            'the CDI directory is emptied by a reboot, write the specs of checkpointed claims again'
          );
        return { passed: `${describe(after)}, CDI specs written again` };
      })();
      if (typeof rebooted === 'string') fail(catalog.nodeReboot, rebooted);
      else pass(catalog.nodeReboot, rebooted.passed);
    }

    // --- unprepare ----------------------------------------------------------------------------------------
    if (prepared === undefined) {
      skip(catalog.unprepare, setupProblem ?? 'not run: prepare failed');
    } else {
      try {
        await sim.deletePod(pod.name, pod.namespace);
        pass(catalog.unprepare, claimName);
      } catch (err) {
        fail(catalog.unprepare, `${errorText(err)}; the kubelet retries it until it succeeds`);
      }
    }
    const unknown = [
      ...(prepared === undefined ? [] : [claimRef]),
      { namespace, name: `kubelet-sim-unknown-${randomBytes(4).toString('hex')}`, uid: randomUUID() },
    ];
    const direct = plugin();
    try {
      const response = await direct.unprepare(unknown, callTimeoutMs);
      const problems = unknown.flatMap((c) => {
        const result = response.claims[c.uid];
        if (result === undefined) return [`no result for ${c.name}`];
        return result.error === '' ? [] : [`${c.name}: ${result.error}`];
      });
      if (problems.length === 0) pass(catalog.unprepareUnknown, unknown.map((c) => c.name).join(', '));
      else
        fail(
          catalog.unprepareUnknown,
          `${problems.join('; ')}; a claim may be gone (or unprepared) before the kubelet unprepares it`,
        );
    } catch (err) {
      fail(catalog.unprepareUnknown, `the call failed: ${errorText(err)}`);
    } finally {
      direct.close();
    }

    // --- health -------------------------------------------------------------------------------------------
    if (registered.healthService === undefined) {
      skip(catalog.healthStream, 'not run: the driver lists no health service');
      skip(catalog.healthDevices, 'not run: the driver lists no health service');
    } else {
      const message = await seen(
        isEvent('dra-health', (e) => e.driver === driver && e.reason === 'update'),
        patienceMs,
      );
      if (message === undefined) {
        const ended = recorded.some(
          isEvent('dra-health', (e) => e.driver === driver && e.reason === 'stream-ended'),
        );
        fail(
          catalog.healthStream,
          `${registered.healthService} NodeWatchResources ${ended ? 'ended' : 'sent nothing'} within ${seconds(patienceMs)}`,
        );
        skip(catalog.healthDevices, 'not run: no health message');
      } else {
        pass(catalog.healthStream, `${message.devices.length} device(s) over ${registered.healthService}`);
      }
      if (message !== undefined && devices.length === 0) {
        skip(catalog.healthDevices, 'not run: no published devices to compare with');
      } else if (message !== undefined) {
        const listed = new Set(message.devices.map((d) => `${d.poolName}/${d.deviceName}`));
        const known = new Set(devices.map((d) => `${d.pool}/${d.device}`));
        const missing = [...known].filter((k) => !listed.has(k));
        const extra = [...listed].filter((k) => !known.has(k));
        if (missing.length === 0 && extra.length === 0)
          pass(catalog.healthDevices, `${listed.size} device(s)`);
        else
          add(
            checkResult(
              catalog.healthDevices,
              'warn',
              [
                missing.length === 0
                  ? ''
                  : `published but not in the health list: ${missing.slice(0, 5).join(', ')}`,
                extra.length === 0
                  ? ''
                  : `in the health list but not published: ${extra.slice(0, 5).join(', ')}`,
              ]
                .filter((s) => s !== '')
                .join('; '),
            ),
          );
      }
    }
    return report();
  } finally {
    stop.abort();
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

/** Creates a ResourceClaim, then writes its status as the scheduler would: allocated `device`, reserved for `pod`. */
async function allocateClaim(
  api: DraCheckApi,
  target: {
    namespace: string;
    claimName: string;
    driver: string;
    nodeName: string;
    device: PublishedDevice;
    pod: { name: string; uid: string };
  },
): Promise<ApiObject> {
  const request = 'device';
  const created = await api.createClaim(target.namespace, {
    metadata: { name: target.claimName, namespace: target.namespace },
    spec: {
      devices: {
        requests: [
          {
            name: request,
            exactly: { deviceClassName: target.driver, allocationMode: 'ExactCount', count: 1 },
          },
        ],
      },
    },
  });
  return api.updateClaimStatus(target.namespace, {
    ...created,
    status: {
      allocation: {
        devices: {
          results: [
            { request, driver: target.driver, pool: target.device.pool, device: target.device.device },
          ],
        },
        nodeSelector: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: [target.nodeName] }] },
          ],
        },
      },
      reservedFor: [{ resource: 'pods', name: target.pod.name, uid: target.pod.uid }],
    },
  });
}

/**
 * Reads this node's slices of `driver` until every pool is complete or `timeoutMs` passed; returns what it saw
 * last, when, and the last API error.
 */
async function waitForSlices(
  api: DraCheckApi,
  node: string,
  driver: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{ slices: ApiObject[]; elapsedMs: number; error?: string }> {
  const started = Date.now();
  let slices: ApiObject[] = [];
  let error: string | undefined;
  for (;;) {
    try {
      slices = await api.listSlices(node, driver);
      error = undefined;
    } catch (err) {
      error = errorText(err);
    }
    const elapsedMs = Date.now() - started;
    if (poolsComplete(slices) || elapsedMs >= timeoutMs || signal.aborted) {
      return { slices, elapsedMs, ...(error === undefined ? {} : { error }) };
    }
    // Polling the API server: a watch would do, but a list every 100 ms is simpler and as good here.
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, timeoutMs - elapsedMs)));
  }
}
