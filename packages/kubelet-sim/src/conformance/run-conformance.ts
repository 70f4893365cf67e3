import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { DevicePluginClient, Version, validateResourceName } from '@kdp/api';
import { pluginChannelOptions } from '../grpc-util';
import { createKubeletSim } from '../kubelet-sim';
import type { DevicesEvent, RegisteredEvent, RegisterRejectedEvent, SimEvent } from '../sim-events';
import {
  checkCatalog,
  checkResult,
  plannedChecks,
  promptMs,
  restartCheckId,
  seconds,
  strictCheck,
} from './check-catalog';
import type { ConformanceCheck, ConformanceReport } from './conformance-check';
import {
  checkHealthRecovers,
  checkReregisterAfterDrop,
  checkReregisterAfterRestart,
  checkReregisterLatency,
  listAfter,
  observeRecovery,
  type Recovery,
  type Watch,
} from './recovery-checks';
import { nextEvent } from './next-event';
import { checkAllocate, checkPreferredAllocation, checkPreStart, checkUnknownId } from './rpc-checks';
import { checkDeviceIdLength, checkFullLists, checkHealthStrings } from './stream-checks';

/** Options of {@link runConformance}. */
export interface ConformanceOptions {
  /** The device-plugin directory; the suite runs its own simulated kubelet there. */
  readonly dir: string;
  /** Check only this resource (default: the first that registers). */
  readonly resource?: string;
  /** When given, the last check sends SIGTERM and expects the plugin's socket unlinked. */
  readonly pid?: number;
  /** How many kubelet restarts to put the plugin through (default 1). */
  readonly restarts?: number;
  /** How long to wait for the first registration (default 30 s). */
  readonly registrationTimeoutMs?: number;
  /** PreStartContainer deadline (default the kubelet's 30 s). */
  readonly preStartTimeoutMs?: number;
  /** How long a slow step (first list, re-registration) is waited for before it counts as missing (default 10 s). */
  readonly patienceMs?: number;
  /** Every warning of a recommended check becomes a failure (`kubelet-sim check --strict`). */
  readonly strict?: boolean;
  /** Called with each check as it completes, for live output. */
  readonly onCheck?: (check: ConformanceCheck) => void;
}

/** How long a slow step is waited for before it counts as never happening, by default. */
const defaultPatienceMs = 10_000;
/** After a rejected Register, how long to wait for a corrected retry before giving up. */
const afterRejectionMs = 2000;

/**
 * Runs the device-plugin conformance suite against whatever plugin registers in `dir`: starts a simulated
 * kubelet there, waits for the plugin, and checks the plugin's side of the protocol (P-2 … P-36). Each check
 * passes, fails (a rule the kubelet enforces), warns (a recommended practice; a failure when `strict`) or is
 * skipped (it does not apply); the report is `ok` when none failed.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const strict = options.strict ?? false;
  const restarts = options.restarts ?? 1;
  const checks: ConformanceCheck[] = [];
  const add = (check: ConformanceCheck): void => {
    const final = strictCheck(check, strict);
    checks.push(final);
    options.onCheck?.(final);
  };
  const preStartTimeoutMs = options.preStartTimeoutMs ?? 30_000;
  const patienceMs = options.patienceMs ?? defaultPatienceMs;
  const registrationTimeoutMs = options.registrationTimeoutMs ?? 30_000;
  const sim = await createKubeletSim({ dir: options.dir, preStartTimeoutMs });
  const wanted = (resource: string): boolean =>
    options.resource === undefined || resource === options.resource;
  const rejections: RegisterRejectedEvent[] = [];
  const lists: DevicesEvent[] = [];
  let streamEnds = 0;
  const record = (event: SimEvent): void => {
    if (event.type === 'register-rejected' && wanted(event.resource)) rejections.push(event);
    if (event.type === 'devices' && wanted(event.resource)) lists.push(event);
    if (event.type === 'stream-ended' && wanted(event.resource)) streamEnds += 1;
  };
  sim.events.on('event', record);
  const stop = new AbortController();
  const watch = { sim, lists, signal: stop.signal };
  const finish = (resource?: string): ConformanceReport => ({
    ok: checks.every((c) => c.status !== 'fail'),
    strict,
    ...(resource === undefined ? {} : { resource }),
    checks,
  });
  try {
    const registered = await firstRegistration(watch, wanted, rejections, registrationTimeoutMs);
    if (registered === undefined) {
      reportNoRegistration(add, rejections, registrationTimeoutMs);
      const done = new Set(checks.map((c) => c.id));
      for (const { definition, id } of plannedChecks(restarts)) {
        if (!done.has(id)) add(checkResult(definition, 'skip', 'not run: the plugin never registered', id));
      }
      return finish();
    }
    const name = registered.resource;
    add(checkResult(checkCatalog.registers, 'pass', `${name} at ${registered.endpoint}`));
    add(nameCheck(name));
    add(versionCheck(registered.version, ''));
    add(servesFirstCheck(registered));
    add(optionsCheck(registered));
    const first = await listAfter(watch, name, registered.at, () => true, patienceMs);
    for (const check of firstListChecks(registered, first, patienceMs)) add(check);

    const healthy = sim.resource(name)?.healthy ?? [];
    const socketPath = isAbsolute(registered.endpoint)
      ? registered.endpoint
      : join(options.dir, registered.endpoint);
    const client = new DevicePluginClient(
      `unix://${socketPath}`,
      credentials.createInsecure(),
      pluginChannelOptions,
    );
    try {
      for (const check of await checkAllocate(client, healthy)) add(check);
      // A stream that already ended on its own says nothing about the bad request.
      const endsBefore = streamEnds;
      const openBefore = endsBefore === 0 && sim.resource(name)?.registered === true;
      const streamKept = (): boolean | undefined => (openBefore ? streamEnds === endsBefore : undefined);
      for (const check of await checkUnknownId(client, streamKept)) add(check);
      for (const check of await checkPreferredAllocation(client, registered.options, healthy)) add(check);
      add(await checkPreStart(client, registered.options, healthy, preStartTimeoutMs));
    } finally {
      client.close();
    }

    // The devices healthy on the last live stream: what each re-registration should list Healthy again.
    let expected = healthy;
    const beforeDisruption = (): readonly string[] => {
      const state = sim.resource(name);
      if (state?.registered === true) expected = state.healthy;
      return expected;
    };
    const recoveries: Recovery[] = [];
    const drop = await observeRecovery(
      watch,
      name,
      beforeDisruption(),
      patienceMs,
      'after a dropped stream',
      () => {
        const ended = nextEvent(sim, 'stream-ended', (e) => e.resource === name, patienceMs, stop.signal);
        sim.dropStream(name);
        return ended;
      },
    );
    recoveries.push(drop);
    add(checkReregisterAfterDrop(drop, patienceMs));
    const restartRecoveries: Recovery[] = [];
    for (let i = 1; i <= restarts; i += 1) {
      const recovery = await observeRecovery(
        watch,
        name,
        beforeDisruption(),
        patienceMs,
        restarts > 1 ? `after kubelet restart ${i}` : 'after a kubelet restart',
        async () => {
          const restarted = nextEvent(sim, 'restarted', () => true, patienceMs, stop.signal);
          await sim.restart();
          return restarted;
        },
      );
      restartRecoveries.push(recovery);
      add(checkReregisterAfterRestart(recovery, patienceMs, restartCheckId(i, restarts)));
    }
    recoveries.push(...restartRecoveries);
    add(checkReregisterLatency(restartRecoveries));
    add(checkHealthRecovers(recoveries, patienceMs));
    add(checkHealthStrings(lists));
    add(checkFullLists(lists));
    add(checkDeviceIdLength(lists));
    if (options.pid === undefined) {
      add(checkResult(checkCatalog.sigterm, 'skip', 'not run: no PID given (--pid)'));
    } else {
      const endpoint = sim.resource(name)?.endpoint ?? registered.endpoint;
      add(
        await sigtermCheck(
          options.pid,
          patienceMs,
          isAbsolute(endpoint) ? endpoint : join(options.dir, endpoint),
        ),
      );
    }
    return finish(name);
  } finally {
    stop.abort();
    sim.events.off('event', record);
    await sim.close();
  }
}

/** Waits for the first accepted Register; gives up a little after a rejection that the plugin does not fix. */
async function firstRegistration(
  watch: Watch,
  wanted: (resource: string) => boolean,
  rejections: readonly RegisterRejectedEvent[],
  timeoutMs: number,
): Promise<RegisteredEvent | undefined> {
  const deadline = Date.now() + timeoutMs;
  const registered = nextEvent(watch.sim, 'registered', (e) => wanted(e.resource), timeoutMs, watch.signal);
  for (;;) {
    const rejectedAt = rejections[0]?.at;
    const until = rejectedAt === undefined ? deadline : Math.min(deadline, rejectedAt + afterRejectionMs);
    const slice = Math.max(0, Math.min(until - Date.now(), 250));
    const result = await Promise.race([
      registered,
      new Promise<'tick'>((r) => setTimeout(() => r('tick'), slice)),
    ]);
    if (result !== 'tick') return result;
    if (Date.now() >= until) return undefined;
  }
}

/** `registers` fails; the name and version are judged from the last refused Register, if any. */
function reportNoRegistration(
  add: (check: ConformanceCheck) => void,
  rejections: readonly RegisterRejectedEvent[],
  timeoutMs: number,
): void {
  const last = rejections[rejections.length - 1];
  if (last === undefined) {
    add(
      checkResult(
        checkCatalog.registers,
        'fail',
        `no plugin registered within ${seconds(timeoutMs)}; without Register the kubelet knows no resource`,
      ),
    );
    return;
  }
  add(checkResult(checkCatalog.registers, 'fail', `the kubelet refused: ${last.message}`));
  add(nameCheck(last.resource));
  add(versionCheck(last.version, last.message));
}

function nameCheck(resource: string): ConformanceCheck {
  const result = validateResourceName(resource);
  return result.valid
    ? checkResult(checkCatalog.resourceName, 'pass', resource)
    : checkResult(checkCatalog.resourceName, 'fail', `${result.message}: ${result.reason}`);
}

function versionCheck(version: string, refusal: string): ConformanceCheck {
  if (version === Version) return checkResult(checkCatalog.apiVersion, 'pass', version);
  return checkResult(
    checkCatalog.apiVersion,
    'fail',
    refusal.startsWith('requested API version') ? refusal : `version ${JSON.stringify(version)}`,
  );
}

function servesFirstCheck(registered: RegisteredEvent): ConformanceCheck {
  return registered.servingAtRegister
    ? checkResult(checkCatalog.servesFirst, 'pass', 'its socket accepted a connection when Register arrived')
    : checkResult(
        checkCatalog.servesFirst,
        'fail',
        'its socket did not accept a connection when Register arrived; the kubelet dials it before replying ' +
          '(10 s), so registering first deadlocks a plugin that serves only after Register returns',
      );
}

function optionsCheck(registered: RegisteredEvent): ConformanceCheck {
  const sent = registered.requestOptions ?? {
    preStartRequired: false,
    getPreferredAllocationAvailable: false,
  };
  const got = registered.options;
  if (
    sent.preStartRequired === got.preStartRequired &&
    sent.getPreferredAllocationAvailable === got.getPreferredAllocationAvailable
  ) {
    return checkResult(checkCatalog.optionsMatch, 'pass', JSON.stringify(got));
  }
  return checkResult(
    checkCatalog.optionsMatch,
    'warn',
    `Register said ${JSON.stringify(sent)} but GetDevicePluginOptions said ${JSON.stringify(got)}; ` +
      'current kubelets use the latter, older ones the former',
  );
}

/** `first-list` (required: capacity is 0 without one) and `first-list-latency` (recommended: within 1 s). */
function firstListChecks(
  registered: RegisteredEvent,
  first: DevicesEvent | undefined,
  patienceMs: number,
): ConformanceCheck[] {
  const { firstList, firstListLatency } = checkCatalog;
  if (first === undefined) {
    return [
      checkResult(
        firstList,
        'fail',
        `no ListAndWatch message within ${seconds(patienceMs)} of Register: the kubelet shows capacity 0`,
      ),
      checkResult(firstListLatency, 'skip', 'not run: no ListAndWatch message arrived'),
    ];
  }
  const latency = first.at - registered.at;
  return [
    checkResult(
      firstList,
      'pass',
      `${first.devices.length} device(s), ${first.healthy.length} healthy, ${first.unhealthy.length} unhealthy`,
    ),
    latency <= promptMs
      ? checkResult(firstListLatency, 'pass', `after ${Math.round(latency)} ms`)
      : checkResult(
          firstListLatency,
          'warn',
          `after ${seconds(latency)} (bound ${seconds(promptMs)}); the kubelet shows capacity 0 until then`,
        ),
  ];
}

async function sigtermCheck(pid: number, patienceMs: number, socketPath: string): Promise<ConformanceCheck> {
  const { sigterm } = checkCatalog;
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    return checkResult(
      sigterm,
      'skip',
      `not run: could not signal PID ${pid}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const deadline = Date.now() + patienceMs;
  while (Date.now() < deadline) {
    if (!existsSync(socketPath)) return checkResult(sigterm, 'pass', `${socketPath} is gone`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return checkResult(
    sigterm,
    'warn',
    `${socketPath} still exists ${seconds(patienceMs)} after SIGTERM; a stale socket stays until the kubelet's ` +
      'next restart deletes it, and in plugin-watcher mode keeps the plugin registered',
  );
}
