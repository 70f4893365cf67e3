import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { DevicePluginClient, Version, validateResourceName } from '@kdp/api';
import { pluginChannelOptions } from '../grpc-util';
import { createKubeletSim } from '../kubelet-sim';
import type { KubeletSim } from '../kubelet-sim-types';
import type { DevicesEvent, RegisteredEvent, RegisterRejectedEvent, SimEvent } from '../sim-events';
import type { ConformanceCheck, ConformanceReport } from './conformance-check';
import {
  checkAllocatePerRequest,
  checkAllocateUnknownId,
  checkPreferredAllocation,
  checkPreStart,
} from './rpc-checks';
import { checkDeviceIdLength, checkFullLists } from './stream-checks';

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
  /** Called with each check as it completes, for live output. */
  readonly onCheck?: (check: ConformanceCheck) => void;
}

/** First ListAndWatch message and re-registration must come within this (the bound). */
const promptMs = 1000;
/** How long a slow step is waited for before it counts as never happening, by default. */
const defaultPatienceMs = 10_000;
/** After a rejected Register, how long to wait for a corrected retry before giving up. */
const afterRejectionMs = 2000;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/**
 * Runs the device-plugin conformance suite against whatever plugin registers in `dir`: starts a simulated
 * kubelet there, waits for the plugin, and checks the plugin's side of the protocol (P-7 … P-29).
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const checks: ConformanceCheck[] = [];
  const add = (check: ConformanceCheck): void => {
    checks.push(check);
    options.onCheck?.(check);
  };
  const preStartTimeoutMs = options.preStartTimeoutMs ?? 30_000;
  const patienceMs = options.patienceMs ?? defaultPatienceMs;
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
  let resource: string | undefined;
  try {
    const registered = await firstRegistration(
      sim,
      wanted,
      rejections,
      options.registrationTimeoutMs ?? 30_000,
    );
    if (registered === undefined) {
      reportNoRegistration(add, rejections, options.registrationTimeoutMs ?? 30_000);
      return finish(checks, undefined);
    }
    resource = registered.resource;
    add({
      id: 'registers',
      title: 'Register is accepted',
      status: 'pass',
      reason: `${resource} at ${registered.endpoint}`,
    });
    add(nameCheck(resource));
    add({
      id: 'api-version',
      title: `Register uses version ${Version}`,
      status: 'pass',
      reason: registered.version,
    });
    add(servesFirstCheck(registered));
    add(optionsCheck(registered));
    const firstList = await firstListCheck(sim, registered, lists, patienceMs);
    add(firstList);

    const name = resource;
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
      add(await checkAllocatePerRequest(client, healthy));
      const endsBefore = streamEnds;
      add(await checkAllocateUnknownId(client, () => streamEnds === endsBefore));
      add(await checkPreferredAllocation(client, registered.options, healthy));
      add(await checkPreStart(client, registered.options, healthy, preStartTimeoutMs));
    } finally {
      client.close();
    }

    add(
      await reregisterCheck(
        sim,
        name,
        patienceMs,
        'reregister-after-stream-drop',
        'after a dropped stream',
        () => {
          const ended = sim.waitFor('stream-ended', (e) => e.resource === name, patienceMs);
          try {
            sim.dropStream(name);
          } catch (err) {
            ended.catch(() => undefined);
            throw err;
          }
          return ended;
        },
      ),
    );
    const restarts = options.restarts ?? 1;
    for (let i = 1; i <= restarts; i += 1) {
      add(
        await reregisterCheck(
          sim,
          name,
          patienceMs,
          restarts > 1 ? `reregister-after-restart-${i}` : 'reregister-after-restart',
          'after a kubelet restart',
          async () => {
            const restarted = sim.waitFor('restarted', undefined, patienceMs);
            await sim.restart();
            return restarted;
          },
        ),
      );
    }
    add(checkFullLists(lists));
    add(checkDeviceIdLength(lists));
    if (options.pid !== undefined) {
      const endpoint = sim.resource(name)?.endpoint ?? registered.endpoint;
      add(
        await sigtermCheck(
          options.pid,
          patienceMs,
          isAbsolute(endpoint) ? endpoint : join(options.dir, endpoint),
        ),
      );
    }
    return finish(checks, resource);
  } finally {
    sim.events.off('event', record);
    await sim.close();
  }
}

function finish(checks: ConformanceCheck[], resource: string | undefined): ConformanceReport {
  return {
    ok: checks.every((c) => c.status !== 'fail'),
    ...(resource === undefined ? {} : { resource }),
    checks,
  };
}

/** Waits for the first accepted Register; gives up a little after a rejection that the plugin does not fix. */
async function firstRegistration(
  sim: KubeletSim,
  wanted: (resource: string) => boolean,
  rejections: readonly RegisterRejectedEvent[],
  timeoutMs: number,
): Promise<RegisteredEvent | undefined> {
  const deadline = Date.now() + timeoutMs;
  const registered = sim.waitFor('registered', (e) => wanted(e.resource), timeoutMs).catch(() => undefined);
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

function reportNoRegistration(
  add: (check: ConformanceCheck) => void,
  rejections: readonly RegisterRejectedEvent[],
  timeoutMs: number,
): void {
  const last = rejections[rejections.length - 1];
  if (last === undefined) {
    add({
      id: 'registers',
      title: 'Register is accepted',
      status: 'fail',
      reason: `no plugin registered within ${seconds(timeoutMs)}`,
    });
  } else {
    add({
      id: 'registers',
      title: 'Register is accepted',
      status: 'fail',
      reason: `the kubelet refused: ${last.message}`,
    });
    const name = validateResourceName(last.resource);
    if (!name.valid) add(nameCheck(last.resource));
    if (last.message.startsWith('requested API version')) {
      add({
        id: 'api-version',
        title: `Register uses version ${Version}`,
        status: 'fail',
        reason: last.message,
      });
    }
  }
  add({
    id: 'not-run',
    title: 'the other checks',
    status: 'warn',
    reason: 'not run: the plugin never registered',
  });
}

function nameCheck(resource: string): ConformanceCheck {
  const result = validateResourceName(resource);
  return result.valid
    ? {
        id: 'resource-name',
        title: 'the resource name is a valid extended resource name',
        status: 'pass',
        reason: resource,
      }
    : {
        id: 'resource-name',
        title: 'the resource name is a valid extended resource name',
        status: 'fail',
        reason: `${result.message}: ${result.reason} (P-8)`,
      };
}

function servesFirstCheck(registered: RegisteredEvent): ConformanceCheck {
  const id = 'serves-before-register';
  const title = 'the plugin serves its socket before it registers';
  return registered.servingAtRegister
    ? { id, title, status: 'pass', reason: 'its socket accepted a connection when Register arrived' }
    : {
        id,
        title,
        status: 'fail',
        reason:
          'its socket did not accept a connection when Register arrived; the kubelet dials it before replying ' +
          '(10 s, P-11), so registering first deadlocks a plugin that serves only after Register returns',
      };
}

function optionsCheck(registered: RegisteredEvent): ConformanceCheck {
  const id = 'options-match';
  const title = 'RegisterRequest.options equal the GetDevicePluginOptions reply';
  const sent = registered.requestOptions ?? {
    preStartRequired: false,
    getPreferredAllocationAvailable: false,
  };
  const got = registered.options;
  if (
    sent.preStartRequired === got.preStartRequired &&
    sent.getPreferredAllocationAvailable === got.getPreferredAllocationAvailable
  ) {
    return { id, title, status: 'pass', reason: JSON.stringify(got) };
  }
  return {
    id,
    title,
    status: 'fail',
    reason: `Register said ${JSON.stringify(sent)} but GetDevicePluginOptions said ${JSON.stringify(got)}; current kubelets use the latter (P-10)`,
  };
}

async function firstListCheck(
  sim: KubeletSim,
  registered: RegisteredEvent,
  lists: readonly DevicesEvent[],
  patienceMs: number,
): Promise<ConformanceCheck> {
  const id = 'first-list-latency';
  const title = `the first ListAndWatch message arrives within ${seconds(promptMs)}`;
  const already = lists.find((l) => l.resource === registered.resource && l.at >= registered.at);
  const first =
    already ??
    (await sim
      .waitFor('devices', (e) => e.resource === registered.resource, patienceMs)
      .catch(() => undefined));
  if (first === undefined) {
    return {
      id,
      title,
      status: 'fail',
      reason: `no ListAndWatch message within ${seconds(patienceMs)} of Register`,
    };
  }
  const latency = first.at - registered.at;
  return latency <= promptMs
    ? { id, title, status: 'pass', reason: `after ${Math.round(latency)} ms` }
    : {
        id,
        title,
        status: 'fail',
        reason: `after ${seconds(latency)} (bound ${seconds(promptMs)}): the kubelet shows capacity 0 until then (P-12)`,
      };
}

/** Triggers a disruption and measures how long the plugin takes to register again (P-2, P-3, P-19, P-21). */
async function reregisterCheck(
  sim: KubeletSim,
  resource: string,
  patienceMs: number,
  id: string,
  what: string,
  disrupt: () => Promise<SimEvent>,
): Promise<ConformanceCheck> {
  const title = `re-registers within ${seconds(promptMs)} ${what}`;
  const again = sim.waitFor('registered', (e) => e.resource === resource, patienceMs).catch(() => undefined);
  let start: SimEvent;
  try {
    start = await disrupt();
  } catch (err) {
    return {
      id,
      title,
      status: 'fail',
      reason: `not run: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const registered = await again;
  if (registered === undefined) {
    return {
      id,
      title,
      status: 'fail',
      reason: `did not register again within ${seconds(patienceMs)} ${what}`,
    };
  }
  // Let the new stream deliver its list before the next disruption.
  await sim.waitFor('devices', (e) => e.resource === resource, patienceMs).catch(() => undefined);
  const latency = registered.at - start.at;
  return latency <= promptMs
    ? { id, title, status: 'pass', reason: `after ${Math.round(latency)} ms` }
    : { id, title, status: 'fail', reason: `after ${seconds(latency)} (bound ${seconds(promptMs)})` };
}

async function sigtermCheck(pid: number, patienceMs: number, socketPath: string): Promise<ConformanceCheck> {
  const id = 'sigterm-unlinks-socket';
  const title = 'the plugin unlinks its socket on SIGTERM';
  try {
    process.kill(pid, 'SIGTERM');
  } catch (err) {
    return {
      id,
      title,
      status: 'fail',
      reason: `could not signal PID ${pid}: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const deadline = Date.now() + patienceMs;
  while (Date.now() < deadline) {
    if (!existsSync(socketPath)) return { id, title, status: 'pass', reason: `${socketPath} is gone` };
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    id,
    title,
    status: 'fail',
    reason: `${socketPath} still exists ${seconds(patienceMs)} after SIGTERM`,
  };
}
