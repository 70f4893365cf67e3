import type { KubeletSim } from '../kubelet-sim-types';
import type { DevicesEvent, SimEvent } from '../sim-events';
import { checkCatalog, checkResult, promptMs, seconds } from './check-catalog';
import type { ConformanceCheck } from './conformance-check';
import { nextEvent } from './next-event';

/** What the plugin did after one disruption (a dropped stream or a kubelet restart). */
export interface Recovery {
  /** `after a dropped stream`, `after a kubelet restart`, … */
  readonly what: string;
  /** The devices that were healthy on the last live stream before the disruption. */
  readonly expected: readonly string[];
  /** Why the disruption could not be made; nothing else is set then. */
  readonly error?: string;
  /** When the disruption happened (the `stream-ended` or `restarted` event). */
  readonly start?: number;
  /** When the plugin registered again. */
  readonly registeredAt?: number;
  /** When the new stream's first message arrived. */
  readonly listedAt?: number;
  /** When a message on the new stream first listed every `expected` device Healthy. */
  readonly recoveredAt?: number;
  /** Expected devices the last message on the new stream did not list Healthy (when never recovered). */
  readonly stillMissing?: readonly string[];
}

/** What the recovery watchers need: the simulator, the suite's record of lists, and the run's abort signal. */
export interface Watch {
  readonly sim: KubeletSim;
  /** Every ListAndWatch message of the checked resource so far, appended before any waiter resumes. */
  readonly lists: readonly DevicesEvent[];
  readonly signal: AbortSignal;
}

/** The first list of `resource` at or after `since` that `satisfies`, waiting for later ones up to `timeoutMs`. */
export async function listAfter(
  watch: Watch,
  resource: string,
  since: number,
  satisfies: (list: DevicesEvent) => boolean,
  timeoutMs: number,
): Promise<DevicesEvent | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = watch.lists.find((l) => l.resource === resource && l.at >= since && satisfies(l));
    if (found !== undefined) return found;
    const left = deadline - Date.now();
    if (left <= 0 || watch.signal.aborted) return undefined;
    await nextEvent(watch.sim, 'devices', (e) => e.resource === resource, left, watch.signal);
  }
}

/**
 * Makes one disruption with `disrupt` (resolving with the event that marks it) and watches the plugin recover:
 * register again, list its devices, list the `expected` ones Healthy; each within `patienceMs`.
 */
export async function observeRecovery(
  watch: Watch,
  resource: string,
  expected: readonly string[],
  patienceMs: number,
  what: string,
  disrupt: () => Promise<SimEvent | undefined>,
): Promise<Recovery> {
  const again = nextEvent(watch.sim, 'registered', (e) => e.resource === resource, patienceMs, watch.signal);
  let start: SimEvent | undefined;
  try {
    start = await disrupt();
  } catch (err) {
    return { what, expected, error: err instanceof Error ? err.message : String(err) };
  }
  if (start === undefined)
    return { what, expected, error: `the disruption was not seen within ${seconds(patienceMs)}` };
  const registered = await again;
  if (registered === undefined) return { what, expected, start: start.at };
  const first = await listAfter(watch, resource, registered.at, () => true, patienceMs);
  const base = { what, expected, start: start.at, registeredAt: registered.at };
  if (first === undefined) return base;
  const healthy = (l: DevicesEvent): boolean => expected.every((id) => l.healthy.includes(id));
  const recovered = await listAfter(watch, resource, registered.at, healthy, patienceMs);
  if (recovered !== undefined) return { ...base, listedAt: first.at, recoveredAt: recovered.at };
  const last =
    [...watch.lists].reverse().find((l) => l.resource === resource && l.at >= registered.at) ?? first;
  return { ...base, listedAt: first.at, stillMissing: expected.filter((id) => !last.healthy.includes(id)) };
}

/** `reregister-after-stream-drop`: recommended, since no kubelet asks for it (P-19, P-21). */
export function checkReregisterAfterDrop(recovery: Recovery, patienceMs: number): ConformanceCheck {
  const definition = checkCatalog.reregisterAfterDrop;
  const { error, start, registeredAt, listedAt } = recovery;
  if (error !== undefined) return checkResult(definition, 'skip', `not run: ${error}`);
  if (start === undefined || registeredAt === undefined) {
    return checkResult(
      definition,
      'warn',
      `did not register again within ${seconds(patienceMs)} ${recovery.what}: the kubelet never reopens a ` +
        'stream, so every device stays unhealthy until the plugin registers again; a plugin that registers ' +
        "again when its stream is cancelled also survives older kubelets' stale-client clean-up",
    );
  }
  const latency = registeredAt - start;
  if (listedAt === undefined) {
    return checkResult(
      definition,
      'warn',
      `registered again after ${Math.round(latency)} ms but sent no ListAndWatch message within ${seconds(patienceMs)}`,
    );
  }
  return latency <= promptMs
    ? checkResult(definition, 'pass', `after ${Math.round(latency)} ms`)
    : checkResult(definition, 'warn', `after ${seconds(latency)} (bound ${seconds(promptMs)})`);
}

/** `reregister-after-restart`: required, since capacity stays 0 until the plugin registers again (P-2, P-3, P-5). */
export function checkReregisterAfterRestart(
  recovery: Recovery,
  patienceMs: number,
  id: string,
): ConformanceCheck {
  const definition = checkCatalog.reregisterAfterRestart;
  const { error, start, registeredAt, listedAt } = recovery;
  if (error !== undefined) return checkResult(definition, 'skip', `not run: ${error}`, id);
  if (start === undefined || registeredAt === undefined) {
    return checkResult(
      definition,
      'fail',
      `did not register again within ${seconds(patienceMs)} ${recovery.what} (its socket deleted, ` +
        'kubelet.sock created again): capacity stays 0, and the kubelet drops the resource after 5 minutes',
      id,
    );
  }
  const latency = `after ${Math.round(registeredAt - start)} ms`;
  return listedAt === undefined
    ? checkResult(
        definition,
        'fail',
        `registered again ${latency} but sent no ListAndWatch message within ${seconds(patienceMs)}: capacity stays 0`,
        id,
      )
    : checkResult(definition, 'pass', latency, id);
}

/** `reregister-latency`: each registration after a kubelet restart within 1 s (recommended, P-5). */
export function checkReregisterLatency(restarts: readonly Recovery[]): ConformanceCheck {
  const definition = checkCatalog.reregisterLatency;
  const latencies = restarts.flatMap((r) =>
    r.start !== undefined && r.registeredAt !== undefined ? [r.registeredAt - r.start] : [],
  );
  if (latencies.length === 0) {
    return checkResult(
      definition,
      'skip',
      restarts.length === 0
        ? 'not run: no restart was asked for'
        : 'not run: the plugin never registered again',
    );
  }
  const slow = latencies.filter((ms) => ms > promptMs);
  return slow.length === 0
    ? checkResult(definition, 'pass', `after ${latencies.map((ms) => `${Math.round(ms)} ms`).join(', ')}`)
    : checkResult(
        definition,
        'warn',
        `after ${slow.map(seconds).join(', ')} (bound ${seconds(promptMs)}); capacity is 0 until then`,
      );
}

/**
 * `health-recovers`: after each re-registration, the devices that were healthy before the disruption are
 * listed Healthy again on the new stream within 1 s (recommended: P-5, P-19).
 */
export function checkHealthRecovers(recoveries: readonly Recovery[], patienceMs: number): ConformanceCheck {
  const definition = checkCatalog.healthRecovers;
  const listed = recoveries.filter((r) => r.registeredAt !== undefined && r.listedAt !== undefined);
  if (listed.length === 0) {
    return checkResult(
      definition,
      'skip',
      'not run: the plugin never registered again and listed its devices',
    );
  }
  for (const r of listed) {
    const registeredAt = r.registeredAt ?? 0;
    if (r.recoveredAt === undefined) {
      const missing = r.stillMissing ?? [];
      return checkResult(
        definition,
        'warn',
        `${r.what}: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''} not listed Healthy ` +
          `within ${seconds(patienceMs)} of registering again; they were healthy before, and stay unallocatable`,
      );
    }
    const latency = r.recoveredAt - registeredAt;
    if (latency > promptMs) {
      return checkResult(
        definition,
        'warn',
        `${r.what}: the ${r.expected.length} healthy device(s) listed Healthy ${seconds(latency)} after ` +
          `registering again (bound ${seconds(promptMs)}); allocatable is 0 until then`,
      );
    }
  }
  const worst = Math.max(...listed.map((r) => (r.recoveredAt ?? 0) - (r.registeredAt ?? 0)));
  return checkResult(
    definition,
    'pass',
    `${listed.length} re-registration(s), each listed the devices healthy before it Healthy again within ${Math.round(worst)} ms`,
  );
}
