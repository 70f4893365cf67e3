import { EventEmitter } from 'node:events';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allInOneServeArgs, createSampleNode, PLUGIN_NAMES, type PluginName } from '@kdp/demo';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { runSoakSession, type SoakStop } from './soak-cycles';
import { unplugUsbDevice, type UnpluggedDevice } from './soak-hotplug';
import {
  startSoakPlugin,
  type ProcessUsage,
  type SoakExit,
  type SoakLogLine,
  type SoakPlugin,
} from './soak-plugin';
import { createSoakRandom, type SoakRandom } from './soak-random';

/** What one soak cycle does to the plugin process, its kubelet or its node. */
export type SoakKind =
  | 'kubelet-restart'
  | 'stream-drop'
  | 'socket-delete'
  | 'plugin-kill'
  | 'config-reload'
  | 'hot-plug'
  | 'allocate';

/** Every kind, in report order. */
export const SOAK_KINDS: readonly SoakKind[] = [
  'kubelet-restart',
  'stream-drop',
  'socket-delete',
  'plugin-kill',
  'config-reload',
  'hot-plug',
  'allocate',
];

/** Options of {@link runSoak}. */
export interface SoakOptions {
  /** The `kdp-device-plugins` bundle (packages/device-plugins/dist/main.js, or a fresh `bundleEntry`). */
  readonly bundle: string;
  readonly cycles: number;
  readonly seed: number;
  /** No new cycle starts after this long (ms). */
  readonly maxMs: number;
  /** A resource not registered again with its full device list within this bound is lost; default 30 s. */
  readonly recoverTimeoutMs?: number;
  /** Called after every cycle (progress output). */
  readonly onCycle?: (progress: SoakProgress) => void;
}

/** Where a running soak stands. */
export interface SoakProgress {
  readonly cycle: number;
  readonly kind: SoakKind;
  readonly variant: string;
  readonly elapsedMs: number;
  readonly lost: number;
  readonly crashes: number;
}

/** A resource that did not come back within the bound. */
export interface LostRegistration {
  readonly cycle: number;
  readonly kind: SoakKind;
  readonly variant: string;
  /** What the simulated kubelet showed at the deadline. */
  readonly state: string;
}

/** An exit of the plugin process the soak did not ask for. */
export interface SoakCrash extends SoakExit {
  readonly cycle: number;
  readonly generation: number;
}

/** An Allocate outcome the soak did not expect. */
export interface UnexpectedAllocateError {
  readonly cycle: number;
  readonly variant: string;
  readonly resource: string;
  readonly message: string;
}

/** A measurement of the plugin process after a cycle. */
export interface UsageSample extends ProcessUsage {
  readonly cycle: number;
  /** Which process: 1 for the first, +1 after every SIGKILL restart (or crash). */
  readonly generation: number;
}

/** What a soak found. */
export interface SoakResult {
  readonly seed: number;
  readonly requestedCycles: number;
  readonly cycles: number;
  /** Why it stopped: every cycle ran, the time bound, or a registration that could not be repaired. */
  readonly stoppedBy: SoakStop;
  readonly wallMs: number;
  /** Per kind: how often it ran and each time to recover (ms). */
  readonly kinds: Readonly<
    Record<SoakKind, { readonly count: number; readonly recoverMs: readonly number[] }>
  >;
  /** How often each variant ran (`hot-plug usb 1-4`, `config-reload sighup`, …). */
  readonly variants: Readonly<Record<string, number>>;
  /** Unplug → the kubelet sees the device go (hot-plug), ms. */
  readonly unplugSeenMs: readonly number[];
  readonly lost: readonly LostRegistration[];
  /** Hot-plug changes and config reloads the plugin never showed within the bound. */
  readonly missed: readonly string[];
  readonly crashes: readonly SoakCrash[];
  /** How the plugin process ended at the end (SIGTERM). */
  readonly finalExit: SoakExit | undefined;
  readonly allocations: {
    readonly admitted: number;
    /** Expected failures (of admissions racing a fault) by class: not registered yet, unhealthy or removed, cut off. */
    readonly expected: Readonly<Record<string, number>>;
    /** The first message of each expected class. */
    readonly examples: Readonly<Record<string, string>>;
    readonly unexpected: readonly UnexpectedAllocateError[];
  };
  readonly usage: readonly UsageSample[];
}

/** Concurrent admissions per `allocate` cycle. */
export const ALLOCATIONS_PER_BURST = 16;

/** USB devices of the sample node that can be unplugged: an FTDI adapter, the hub (keyboard, webcam), Zigbee. */
const USB_PORTS = ['1-2', '1-3', '1-4'] as const;

/** Faults of the kubelet or the process, after which resources must register again. */
type Disruption = Extract<SoakKind, 'kubelet-restart' | 'stream-drop' | 'socket-delete' | 'plugin-kill'>;

/** Disruptions an `allocate` cycle may race (SIGKILL stays out: the second half of a soak has none). */
const RACED: readonly Disruption[] = ['stream-drop', 'socket-delete', 'kubelet-restart'];

/**
 * Failures expected of an admission that races a fault: the kubelet's refusals before any RPC, and the gRPC codes
 * of a call the fault cut off. A burst on a settled node expects none: every error there is unexpected.
 */
const EXPECTED_ERRORS: readonly { readonly label: string; readonly pattern: RegExp }[] = [
  { label: 'not registered (yet)', pattern: /unregistered device|has been stopped/ },
  {
    label: 'unhealthy or removed',
    pattern: /no healthy devices present|requested number of devices unavailable/,
  },
  { label: 'cut off by the fault', pattern: /code = (Unavailable|Cancelled|Canceled)\b/ },
];

/**
 * Kinds of a soak of `cycles`: every kind once first (shuffled), then uniform draws; SIGKILL only in the first
 * half, so the second half is one long-lived process over which RSS and fds are compared.
 */
export function scheduleSoak(random: SoakRandom, cycles: number): SoakKind[] {
  const schedule = random.shuffle(SOAK_KINDS).slice(0, cycles);
  const later = SOAK_KINDS.filter((kind) => kind !== 'plugin-kill');
  while (schedule.length < cycles)
    schedule.push(random.pick(schedule.length < cycles / 2 ? SOAK_KINDS : later));
  return schedule;
}

/**
 * Runs `kdp-device-plugins serve --plugins gpu,sriov,infiniband,usb,fpga` on the demo's sample node against
 * kubelet-sim for `cycles` seeded random disruptions (see {@link SOAK_KINDS}); after each, waits (event-driven,
 * bounded) until every resource is registered again with its full device list. Resolves with what it found.
 */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const recoverTimeoutMs = options.recoverTimeoutMs ?? 30_000;
  const random = createSoakRandom(options.seed);
  const schedule = scheduleSoak(random, options.cycles);
  const started = performance.now();
  const node = createSampleNode();
  const dir = join(node.root, 'dp');
  for (const sub of ['cdi', 'devinfo']) mkdirSync(join(node.root, sub));
  const original = Object.fromEntries(
    PLUGIN_NAMES.map((name) => [name, readFileSync(node.configs[name], 'utf8')]),
  ) as Record<PluginName, string>;
  /** What each configuration file holds now. */
  const configs = { ...original };
  const expected = new Map(node.expected.map((e) => [e.resource, e.devices]));
  const resources = [...expected.keys()];

  const kinds = {} as Record<SoakKind, { count: number; recoverMs: number[] }>;
  for (const kind of SOAK_KINDS) kinds[kind] = { count: 0, recoverMs: [] };
  const variants: Record<string, number> = {};
  const unplugSeenMs: number[] = [];
  const lost: LostRegistration[] = [];
  const missed: string[] = [];
  const crashes: SoakCrash[] = [];
  const usage: UsageSample[] = [];
  const admissions = {
    admitted: 0,
    expected: {} as Record<string, number>,
    examples: {} as Record<string, string>,
    unexpected: [] as UnexpectedAllocateError[],
  };

  let sim: KubeletSim | undefined;
  let plugin: SoakPlugin | undefined;
  let generation = 0;
  let cycle = 0;
  let variant = 'start';
  /** Log lines of whichever process runs now. */
  const logs = new EventEmitter();
  logs.setMaxListeners(0);
  /** `registered` events, numbered: a resource is back once its number is above the one taken before a fault. */
  let registrations = 0;
  const registeredAt = new Map<string, number>();

  const spawnPlugin = (): SoakPlugin => {
    const args = allInOneServeArgs({
      node,
      devicePluginDir: dir,
      cdiDir: join(node.root, 'cdi'),
      devinfoDir: join(node.root, 'devinfo'),
    });
    const child = startSoakPlugin(options.bundle, args);
    generation += 1;
    const own = generation;
    child.lines.on('line', (line: SoakLogLine) => logs.emit('line', line));
    void child.exited.then((exit) => {
      if (exit.expected) return;
      crashes.push({ ...exit, cycle, generation: own });
      // Counted; the soak goes on with a new process, and the node must still recover.
      if (plugin === child) plugin = spawnPlugin();
    });
    return child;
  };

  const complete = (): boolean =>
    resources.every((name) => {
      const state = sim?.resource(name);
      const n = expected.get(name);
      return state?.registered === true && state.devices.length === n && state.healthy.length === n;
    });
  const describeState = (): string =>
    resources
      .map((name) => {
        const state = sim?.resource(name);
        if (state === undefined) return `${name}: absent`;
        const registered = state.registered ? 'registered' : 'NOT registered';
        return `${name}: ${registered}, ${state.healthy.length}/${state.devices.length} healthy (want ${expected.get(name)})`;
      })
      .join('; ');

  /** Resolves true once `check` holds (looked at after every kubelet-sim event and log line), false at the bound. */
  const until = (check: () => boolean, timeoutMs = recoverTimeoutMs): Promise<boolean> =>
    new Promise((resolve) => {
      if (check()) {
        resolve(true);
        return;
      }
      const onEvent = (): void => {
        if (!check()) return;
        cleanup();
        resolve(true);
      };
      const timer = setTimeout(() => {
        cleanup();
        resolve(check());
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        sim?.events.off('event', onEvent);
        logs.off('line', onEvent);
      };
      sim?.events.on('event', onEvent);
      logs.on('line', onEvent);
    });

  /** Every `affected` resource registered since `mark`, and every resource complete. */
  const backAfter = (mark: number, affected: readonly string[]) => (): boolean =>
    affected.every((name) => (registeredAt.get(name) ?? 0) > mark) && complete();

  /**
   * Waits for `check` and records the time since `from` under `kind` (unless `record` is false). At the bound it
   * records a lost registration and repairs with a fresh process; false when even that did not bring it back.
   */
  const recover = async (
    kind: SoakKind,
    check: () => boolean,
    from: number,
    record = true,
  ): Promise<boolean> => {
    if (await until(check)) {
      if (record) kinds[kind].recoverMs.push(performance.now() - from);
      return true;
    }
    lost.push({ cycle, kind, variant, state: describeState() });
    const old = plugin;
    old?.signal('SIGKILL');
    await old?.exited;
    const mark = registrations;
    plugin = spawnPlugin();
    return until(backAfter(mark, resources));
  };

  /** Applies a fault of the kubelet or the process; resolves with the resources that must register again. */
  const disrupt = async (kind: Disruption, resource: string): Promise<readonly string[]> => {
    switch (kind) {
      case 'kubelet-restart':
        await sim?.restart();
        return resources;
      case 'stream-drop':
        sim?.dropStream(resource);
        return [resource];
      case 'socket-delete':
        await sim?.deletePluginSocket(resource);
        return [resource];
      case 'plugin-kill': {
        const old = plugin;
        old?.signal('SIGKILL');
        await old?.exited;
        plugin = spawnPlugin();
        return resources;
      }
    }
  };

  /** Watches for `configuration reloaded` (with `reason`) of each of `plugins`; a failed reload is recorded. */
  const watchReloads = (names: readonly PluginName[], reason: string) => {
    const seen = new Set<string>();
    const onLine = (line: SoakLogLine): void => {
      if (
        line.msg === 'configuration reloaded' &&
        line.fields['reason'] === reason &&
        line.plugin !== undefined
      )
        seen.add(line.plugin);
      if (line.msg.startsWith('configuration reload failed'))
        missed.push(
          `cycle ${cycle}: ${variant}: ${line.plugin ?? '?'}: ${line.msg}: ${String(line.fields['problem'])}`,
        );
    };
    logs.on('line', onLine);
    return { done: () => names.every((name) => seen.has(name)), stop: () => logs.off('line', onLine) };
  };

  /** A new text of the same meaning (a trailing newline more or less), written in place or renamed over it. */
  const rewriteConfig = (name: PluginName, how: 'file' | 'rename'): void => {
    const text = configs[name] === original[name] ? `${original[name]}\n` : original[name];
    configs[name] = text;
    const file = node.configs[name];
    if (how === 'file') {
      writeFileSync(file, text);
      return;
    }
    // As editors and ConfigMap updates do: a new file renamed over the old one.
    writeFileSync(`${file}.soak-tmp`, text);
    renameSync(`${file}.soak-tmp`, file);
  };

  /** Unplugs a device, waits until the kubelet sees it go, plugs it in again; recovery counts from the replug. */
  const hotPlug = async (what: string): Promise<boolean> => {
    let replug: () => void;
    const from = performance.now();
    if (what === 'gpu') {
      node.fault.fail();
      replug = () => node.fault.recover();
    } else {
      const device: UnpluggedDevice = unplugUsbDevice({
        sysfsRoot: node.sysfsRoot,
        devRoot: node.devRoot,
        portPath: what.slice('usb '.length),
        holdingDir: join(node.root, 'unplugged'),
      });
      replug = () => device.replug();
    }
    if (await until(() => !complete())) unplugSeenMs.push(performance.now() - from);
    else missed.push(`cycle ${cycle}: hot-plug ${what}: the unplug never reached the kubelet`);
    const replugged = performance.now();
    replug();
    return recover('hot-plug', complete, replugged);
  };

  /**
   * 16 admissions at once, each of one healthy device. A raced fault strikes once a random number of them has
   * been answered; the kubelet's refusals and the gRPC codes of cut-off calls are then expected.
   */
  const allocate = async (raced: Disruption | undefined): Promise<boolean> => {
    const current = sim;
    if (current === undefined) return false;
    const slots = resources.flatMap((name) =>
      Array<string>(current.resource(name)?.healthy.length ?? 0).fill(name),
    );
    const picks = random.shuffle(slots).slice(0, ALLOCATIONS_PER_BURST);
    const pods = picks.map((_, i) => `soak-${cycle}-${i}`);
    const strikeAfter = random.int(picks.length);
    let answered = 0;
    let strike: () => void = () => undefined;
    const struck = new Promise<void>((resolve) => (strike = resolve));
    const burst = Promise.allSettled(
      picks.map((resource, i) =>
        current.admit({ pod: pods[i] ?? '', container: 'c', resource, count: 1 }).finally(() => {
          answered += 1;
          if (answered >= strikeAfter) strike();
        }),
      ),
    );
    let healed = Promise.resolve(true);
    if (raced !== undefined) {
      if (strikeAfter > 0) await struck;
      const from = performance.now();
      const mark = registrations;
      const affected = await disrupt(raced, random.pick(resources));
      healed = recover('allocate', backAfter(mark, affected), from);
    }
    const outcomes = await burst;
    outcomes.forEach((outcome, i) => {
      const resource = picks[i] ?? '';
      if (outcome.status === 'fulfilled') {
        if (outcome.value.deviceIds.length === 1) admissions.admitted += 1;
        else {
          const message = `asked for 1 device, got ${JSON.stringify(outcome.value.deviceIds)}`;
          admissions.unexpected.push({ cycle, variant, resource, message });
        }
        return;
      }
      const message = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
      const known = raced === undefined ? undefined : EXPECTED_ERRORS.find((e) => e.pattern.test(message));
      if (known === undefined) {
        admissions.unexpected.push({ cycle, variant, resource, message });
        return;
      }
      admissions.expected[known.label] = (admissions.expected[known.label] ?? 0) + 1;
      admissions.examples[known.label] ??= message;
    });
    for (const pod of pods) current.release(pod);
    return (await healed) && (await recover('allocate', complete, performance.now(), false));
  };

  const runCycle = async (kind: SoakKind): Promise<boolean> => {
    switch (kind) {
      case 'kubelet-restart':
      case 'stream-drop':
      case 'socket-delete':
      case 'plugin-kill': {
        const target = random.pick(resources);
        variant = kind;
        const mark = registrations;
        const from = performance.now();
        const affected = await disrupt(kind, target);
        return recover(kind, backAfter(mark, affected), from);
      }
      case 'config-reload': {
        const how = random.pick(['file', 'rename', 'sighup'] as const);
        const name = random.pick(PLUGIN_NAMES);
        variant = `config-reload ${how}`;
        const from = performance.now();
        const reloads =
          how === 'sighup' ? watchReloads(PLUGIN_NAMES, 'signal') : watchReloads([name], 'file');
        if (how === 'sighup') plugin?.signal('SIGHUP');
        else rewriteConfig(name, how);
        const seen = await until(reloads.done);
        reloads.stop();
        if (!seen) missed.push(`cycle ${cycle}: ${variant} ${name}: no "configuration reloaded" line`);
        return recover(kind, complete, from);
      }
      case 'hot-plug': {
        const what = random.pick(['gpu', ...USB_PORTS.map((port) => `usb ${port}`)]);
        variant = `hot-plug ${what}`;
        return hotPlug(what);
      }
      case 'allocate': {
        const raced = random.next() < 0.5 ? random.pick(RACED) : undefined;
        variant = raced === undefined ? 'allocate settled' : `allocate racing ${raced}`;
        return allocate(raced);
      }
    }
  };

  const sample = async (): Promise<void> => {
    try {
      if (plugin !== undefined) usage.push({ cycle, generation, ...(await plugin.usage()) });
    } catch {
      // It ended between the cycle and the sample; a crash is counted where it exits.
    }
  };

  const { stoppedBy, finalExit } = await runSoakSession({
    schedule,
    started,
    maxMs: options.maxMs,
    setup: async () => {
      sim = await createKubeletSim({ dir });
      sim.events.on('registered', (event: { resource: string }) => {
        registrations += 1;
        registeredAt.set(event.resource, registrations);
      });
      plugin = spawnPlugin();
      if (!(await until(complete, 2 * recoverTimeoutMs)))
        throw new Error(`kdp-device-plugins did not register everything: ${describeState()}`);
      await sample();
    },
    cycle: async (kind, n) => {
      cycle = n;
      const ok = await runCycle(kind);
      kinds[kind].count += 1;
      variants[variant] = (variants[variant] ?? 0) + 1;
      await sample();
      options.onCycle?.({
        cycle,
        kind,
        variant,
        elapsedMs: performance.now() - started,
        lost: lost.length,
        crashes: crashes.length,
      });
      return ok;
    },
    takeProcess: () => {
      const last = plugin;
      plugin = undefined;
      return last;
    },
    teardown: async () => {
      await sim?.close();
      node.remove();
    },
  });
  return {
    seed: options.seed,
    requestedCycles: options.cycles,
    cycles: cycle,
    stoppedBy,
    wallMs: performance.now() - started,
    kinds,
    variants,
    unplugSeenMs,
    lost,
    missed,
    crashes,
    finalExit,
    allocations: admissions,
    usage,
  };
}

/** Whether a soak passed: nothing lost, no crash, nothing missed, and a clean exit (0) at the end. */
export function soakPassed(result: SoakResult): boolean {
  return (
    result.lost.length === 0 &&
    result.crashes.length === 0 &&
    result.missed.length === 0 &&
    result.finalExit?.code === 0 &&
    result.stoppedBy !== 'failure'
  );
}
