import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allInOneServeArgs, createSampleNode } from '@kdp/demo';
import { createDraPlayground, writeKubeconfig, type DraPlayground } from '@kdp/kubelet-sim';
import {
  createSoakClasses,
  createSoakPod,
  DRA_DRIVERS,
  doublyAllocated,
  podsNotRunning,
  publishedDevices,
  readCheckpoints,
} from './dra-soak-cluster';
import { runSoakSession, type SoakStop } from './soak-cycles';
import { startSoakPlugin, type SoakExit, type SoakPlugin } from './soak-plugin';
import { createSoakRandom, type SoakRandom } from './soak-random';

/** What one DRA soak cycle does. */
export type DraSoakKind =
  | 'kubelet-restart'
  | 'driver-kill'
  | 'api-restart'
  | 'conflict-storm'
  | 'slice-wipe'
  | 'node-reboot'
  | 'pods';

/** Every kind, in report order. */
export const DRA_SOAK_KINDS: readonly DraSoakKind[] = [
  'kubelet-restart',
  'driver-kill',
  'api-restart',
  'conflict-storm',
  'slice-wipe',
  'node-reboot',
  'pods',
];

/** Options of {@link runDraSoak}. */
export interface DraSoakOptions {
  /** The `kdp-device-plugins` bundle. */
  readonly bundle: string;
  readonly cycles: number;
  readonly seed: number;
  /** No new cycle starts after this long (ms). */
  readonly maxMs: number;
  /** Every pod Running again, every slice back within this bound, else a claim is lost; default 30 s. */
  readonly recoverTimeoutMs?: number;
  /** Called after every cycle. */
  readonly onCycle?: (progress: { cycle: number; elapsedMs: number; lost: number; crashes: number }) => void;
}

/** A violation found after a cycle. */
export interface DraViolation {
  readonly cycle: number;
  readonly kind: DraSoakKind;
  readonly what: string;
}

/** What a DRA soak found. */
export interface DraSoakResult {
  readonly seed: number;
  readonly requestedCycles: number;
  readonly cycles: number;
  readonly stoppedBy: SoakStop;
  readonly wallMs: number;
  readonly kinds: Readonly<
    Record<DraSoakKind, { readonly count: number; readonly recoverMs: readonly number[] }>
  >;
  /** Pods (with their claims) not Running with their devices, or slices not back, within the bound. */
  readonly lost: readonly DraViolation[];
  /** A device in two claims' allocations, or prepared for two claims in a checkpoint. */
  readonly doubleAllocated: readonly DraViolation[];
  readonly crashes: readonly (SoakExit & { readonly cycle: number })[];
  readonly podsCreated: number;
  readonly podsDeleted: number;
  /** Writes the API server refused during conflict storms. */
  readonly conflictsInjected: number;
  readonly finalExit: SoakExit | undefined;
}

/** Live pods at most; each takes one device of one driver. */
const MAX_PODS = 8;
const NODE = 'soak-node';
/** Crashed drivers replaced at most (beyond, the soak fails at the next bound). */
const MAX_RESPAWNS = 20;

/** Every kind once first (shuffled), then uniform draws. */
export function scheduleDraSoak(random: SoakRandom, cycles: number): DraSoakKind[] {
  const schedule = random.shuffle(DRA_SOAK_KINDS).slice(0, cycles);
  while (schedule.length < cycles) schedule.push(random.pick(DRA_SOAK_KINDS));
  return schedule;
}

/**
 * Runs `kdp-device-plugins serve --mode dra` with all five plugins on the demo's sample node against the DRA
 * playground (API server, scheduler, kubelet) in this process, for `cycles` seeded faults; after each, waits
 * (event-driven, bounded) until every slice is back and every live pod Running with its devices, then checks
 * that no device is allocated or prepared twice.
 */
export async function runDraSoak(options: DraSoakOptions): Promise<DraSoakResult> {
  const bound = options.recoverTimeoutMs ?? 30_000;
  const random = createSoakRandom(options.seed);
  const schedule = scheduleDraSoak(random, options.cycles);
  const started = performance.now();
  const node = createSampleNode();
  const dirs = {
    registry: join(node.root, 'plugins_registry'),
    state: join(node.root, 'kubelet'),
    draPlugins: join(node.root, 'dra-plugins'),
    cdi: join(node.root, 'cdi'),
    devinfo: join(node.root, 'devinfo'),
    dp: join(node.root, 'dp'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const bootIdFile = join(node.procRoot, 'sys', 'kernel', 'random', 'boot_id');
  mkdirSync(join(bootIdFile, '..'), { recursive: true });
  let bootId = randomUUID();
  writeFileSync(bootIdFile, `${bootId}\n`);
  const kubeconfig = join(node.root, 'kubeconfig');

  const kinds = {} as Record<DraSoakKind, { count: number; recoverMs: number[] }>;
  for (const kind of DRA_SOAK_KINDS) kinds[kind] = { count: 0, recoverMs: [] };
  const lost: DraViolation[] = [];
  const doubleAllocated: DraViolation[] = [];
  const crashes: (SoakExit & { cycle: number })[] = [];
  const live = new Map<string, string>(); // pod → driver
  let podsCreated = 0;
  let podsDeleted = 0;
  let cycle = 0;
  let kind: DraSoakKind = 'pods';
  let playground: DraPlayground | undefined;
  let driver: SoakPlugin | undefined;
  let expected = new Map<string, number>();
  /** `dra-registered` events, numbered: a driver is back once its number is above the one taken before a fault. */
  let registrations = 0;
  const registeredAt = new Map<string, number>();
  /** Drivers that must register with the kubelet again before the cycle counts as recovered. */
  let mustRegisterAfter: number | undefined;

  const spawnDriver = (): SoakPlugin => {
    const serve = allInOneServeArgs({
      node,
      devicePluginDir: dirs.dp,
      cdiDir: dirs.cdi,
      devinfoDir: dirs.devinfo,
    });
    // The device-plugin socket directory is no flag of --mode dra.
    serve.splice(serve.indexOf('--device-plugin-dir'), 2);
    const args = [
      ...serve,
      ...['--mode', 'dra', '--node-name', NODE, '--kubeconfig', kubeconfig],
      ...['--plugins-registry-dir', dirs.registry, '--dra-plugins-dir', dirs.draPlugins],
    ];
    const child = startSoakPlugin(options.bundle, args);
    void child.exited.then((exit) => {
      if (exit.expected) return;
      crashes.push({ ...exit, cycle });
      // Counted, and replaced as a DaemonSet would; a crash loop ends the soak at its bound instead.
      if (driver === child && crashes.length <= MAX_RESPAWNS) driver = spawnDriver();
    });
    return child;
  };
  const killDriver = async (): Promise<void> => {
    const old = driver;
    old?.signal('SIGKILL');
    await old?.exited;
  };

  const slicesBack = (): boolean => {
    if (playground === undefined) return false;
    const now = publishedDevices(playground, NODE);
    return [...expected].every(([d, n]) => now.get(d) === n);
  };
  const registered = (): boolean =>
    mustRegisterAfter === undefined ||
    DRA_DRIVERS.every((d) => (registeredAt.get(d) ?? 0) > (mustRegisterAfter ?? 0));
  const settled = (): boolean =>
    playground !== undefined &&
    registered() &&
    slicesBack() &&
    podsNotRunning(playground, live.keys()).length === 0;

  /** Resolves true once `check` holds, looked at on every change of pods, claims and slices; false at the bound. */
  const until = (check: () => boolean, timeoutMs = bound): Promise<boolean> =>
    new Promise((resolve) => {
      const store = playground?.store;
      if (check() || store === undefined) {
        resolve(check());
        return;
      }
      const stops: (() => void)[] = [];
      const timer = setTimeout(() => finish(check()), timeoutMs);
      const finish = (ok: boolean): void => {
        clearTimeout(timer);
        for (const stop of stops.splice(0)) stop();
        resolve(ok);
      };
      const onChange = (): void => {
        if (check()) queueMicrotask(() => finish(true));
      };
      const since = String(store.resourceVersion());
      for (const resource of ['pods', 'resourceclaims', 'resourceslices'])
        stops.push(store.watch(resource, { resourceVersion: since }, onChange));
      const sim = playground?.nodes[0]?.sim;
      sim?.events.on('event', onChange);
      stops.push(() => sim?.events.off('event', onChange));
    });

  /** Waits for the node to settle, records the time since `from`, then checks for devices held twice. */
  const recover = async (from: number): Promise<boolean> => {
    let ok = await until(settled);
    if (playground === undefined) return false;
    if (ok) kinds[kind].recoverMs.push(performance.now() - from);
    else {
      const waiting = podsNotRunning(playground, live.keys());
      const slices = JSON.stringify(Object.fromEntries(publishedDevices(playground, NODE)));
      const unregistered = DRA_DRIVERS.filter((d) => (registeredAt.get(d) ?? 0) <= (mustRegisterAfter ?? 0));
      const errors = (driver?.tail() ?? []).filter((line) => /"level":(40|50|60)/.test(line)).slice(-4);
      lost.push({
        cycle,
        kind,
        what:
          `not back in ${bound} ms: pods waiting [${waiting.join('; ')}], slices ${slices}, ` +
          `not registered again [${unregistered.join(', ')}]${errors.map((line) => `\n    ${line}`).join('')}`,
      });
      // As the device-plugin soak: a fresh driver process to go on; the soak stops if even that does not recover.
      await killDriver();
      mustRegisterAfter = registrations;
      driver = spawnDriver();
      ok = await until(settled);
    }
    for (const what of doublyAllocated(playground))
      doubleAllocated.push({ cycle, kind, what: `allocated twice: ${what}` });
    for (const what of readCheckpoints(dirs.draPlugins, bootId))
      doubleAllocated.push({ cycle, kind, what: `prepared twice: ${what}` });
    return ok;
  };

  /** Creates or deletes 1–3 pods, each with a claim of a driver that has a free device. */
  const churnPods = (): void => {
    if (playground === undefined) return;
    for (let n = 1 + random.int(3); n > 0; n--) {
      const inUse = new Map<string, number>();
      for (const d of live.values()) inUse.set(d, (inUse.get(d) ?? 0) + 1);
      const free = DRA_DRIVERS.filter((d) => (expected.get(d) ?? 0) > (inUse.get(d) ?? 0));
      if (live.size > 0 && (live.size >= MAX_PODS || free.length === 0 || random.next() < 0.4)) {
        const name = random.pick([...live.keys()]);
        playground.store.delete('pods', name, { namespace: 'default' });
        live.delete(name);
        podsDeleted += 1;
      } else if (free.length > 0) {
        const d = random.pick(free);
        const name = `soak-${cycle}-${n}`;
        createSoakPod(playground, name, d);
        live.set(name, d);
        podsCreated += 1;
      }
    }
  };

  const runCycle = async (): Promise<boolean> => {
    const current = playground;
    if (current === undefined) return false;
    const sim = current.nodes[0]?.sim;
    const from = performance.now();
    mustRegisterAfter = ['kubelet-restart', 'driver-kill', 'node-reboot'].includes(kind)
      ? registrations
      : undefined;
    switch (kind) {
      case 'kubelet-restart':
        await sim?.restart();
        break;
      case 'driver-kill':
        await killDriver();
        driver = spawnDriver();
        break;
      case 'api-restart':
        // Then a change the driver can only learn through a watch opened on the new server: its slices wiped.
        await current.restartApiServer();
        current.store.deleteCollection('resourceslices', {
          fieldSelector: `spec.nodeName=${NODE},spec.driver=${random.pick(DRA_DRIVERS)}`,
        });
        break;
      case 'conflict-storm': {
        // Writes refused for a while, with work for the driver to write meanwhile: its slices wiped.
        current.faults.startConflicts();
        current.store.deleteCollection('resourceslices', { fieldSelector: `spec.nodeName=${NODE}` });
        const refused = current.faults.refused;
        await current.faults.refusedMoreThan(refused, 5000);
        current.faults.endConflicts();
        break;
      }
      case 'slice-wipe':
        current.store.deleteCollection('resourceslices', { fieldSelector: `spec.nodeName=${NODE}` });
        break;
      case 'node-reboot':
        await killDriver();
        bootId = randomUUID();
        writeFileSync(bootIdFile, `${bootId}\n`);
        await sim?.restart();
        driver = spawnDriver();
        break;
      case 'pods':
        churnPods();
        break;
    }
    // A fault beside the pods' churn, as pods come and go on a real node whatever else happens.
    if (kind !== 'pods' && random.next() < 0.5) churnPods();
    return recover(from);
  };

  const { stoppedBy, finalExit } = await runSoakSession({
    schedule,
    started,
    maxMs: options.maxMs,
    setup: async () => {
      playground = await createDraPlayground({
        pluginsRegistryDir: dirs.registry,
        stateDir: dirs.state,
        nodeName: NODE,
        cdiDir: dirs.cdi,
        devRoot: node.devRoot,
        podSyncRetryMs: 100,
      });
      await writeKubeconfig(kubeconfig, {
        server: playground.url,
        token: playground.token,
        caData: playground.caData,
      });
      playground.nodes[0]?.sim.events.on('event', (event: { type: string; driver?: string }) => {
        if (event.type !== 'dra-registered' || event.driver === undefined) return;
        registrations += 1;
        registeredAt.set(event.driver, registrations);
      });
      createSoakClasses(playground);
      driver = spawnDriver();
      // Every device of the sample node, each in its driver's pool (a pool may be published in more than one write).
      const total = node.expected.reduce((sum, e) => sum + e.devices, 0);
      const all = (): boolean => {
        if (playground === undefined) return false;
        const counts = publishedDevices(playground, NODE);
        return (
          DRA_DRIVERS.every((d) => (counts.get(d) ?? 0) > 0) &&
          [...counts.values()].reduce((a, b) => a + b, 0) === total
        );
      };
      if (!(await until(all, 2 * bound)))
        throw new Error(
          `the drivers did not publish ${total} devices: ${JSON.stringify(Object.fromEntries(publishedDevices(playground, NODE)))}\n${driver.tail().slice(-10).join('\n')}`,
        );
      expected = publishedDevices(playground, NODE);
    },
    cycle: async (next, n) => {
      cycle = n;
      kind = next;
      const ok = await runCycle();
      kinds[kind].count += 1;
      options.onCycle?.({
        cycle,
        elapsedMs: performance.now() - started,
        lost: lost.length,
        crashes: crashes.length,
      });
      return ok;
    },
    takeProcess: () => {
      const last = driver;
      driver = undefined;
      return last;
    },
    teardown: async () => {
      await playground?.close();
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
    lost,
    doubleAllocated,
    crashes,
    podsCreated,
    podsDeleted,
    conflictsInjected: playground?.faults.refused ?? 0,
    finalExit,
  };
}

/** Whether a DRA soak passed: nothing lost or held twice, no crash, a clean exit (0) at the end. */
export function draSoakPassed(result: DraSoakResult): boolean {
  return (
    result.lost.length === 0 &&
    result.doubleAllocated.length === 0 &&
    result.crashes.length === 0 &&
    result.finalExit?.code === 0 &&
    result.stoppedBy !== 'failure'
  );
}
