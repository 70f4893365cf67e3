import type { KubeletSim, NodeKubelet, ObjectStore } from '@kdp/kubelet-sim';
import { DRA_PLUGIN, type PluginProcess } from '../plugin-processes';
import { logTail, type DemoContext } from './demo-context';

/** The DRA side of the demo node: the playground's API server and node, the driver's process and where it writes. */
export interface DraSide {
  /** The playground API server's storage. */
  readonly store: ObjectStore;
  /** The playground node's kubelet (plugin watcher, DRA manager). */
  readonly sim: KubeletSim;
  /** The playground node's pod side. */
  readonly kubelet: NodeKubelet;
  /** The kubeconfig for real kubectl (the playground's URL, token and CA). */
  readonly kubeconfig: string;
  readonly nodeName: string;
  /** `usb.kdp.dev`. */
  readonly driver: string;
  readonly cdiDir: string;
  readonly process: PluginProcess;
}

interface SliceSpec {
  readonly pool: { readonly name: string; readonly generation: number; readonly resourceSliceCount: number };
  readonly devices?: ReadonlyArray<{
    readonly name: string;
    readonly attributes?: Readonly<Record<string, { readonly string?: string; readonly int?: number }>>;
  }>;
}

/** The pools of the driver's slices when each is complete (its newest generation has all its slices). */
function completePools(dra: DraSide): Map<string, NonNullable<SliceSpec['devices']>> | undefined {
  const specs = dra.store
    .list('resourceslices', { fieldSelector: `spec.nodeName=${dra.nodeName},spec.driver=${dra.driver}` })
    .items.map((slice) => (slice as unknown as { spec: SliceSpec }).spec);
  const pools = new Map<string, SliceSpec[]>();
  for (const spec of specs) pools.set(spec.pool.name, [...(pools.get(spec.pool.name) ?? []), spec]);
  const devices = new Map<string, NonNullable<SliceSpec['devices']>>();
  for (const [name, slices] of pools) {
    const newest = Math.max(...slices.map((s) => s.pool.generation));
    const current = slices.filter((s) => s.pool.generation === newest);
    if (current.length !== current[0]?.pool.resourceSliceCount) return undefined;
    devices.set(
      name,
      current.flatMap((s) => s.devices ?? []),
    );
  }
  return devices;
}

/** Resolves once `check` gives a value, looked at after every change of the API server's `resource`. */
export function untilStored<T>(
  dra: DraSide,
  resource: string,
  check: () => T | undefined,
  timeoutMs: number,
  describe: () => string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let stop: () => void = () => undefined;
    const timer = setTimeout(() => {
      stop();
      reject(new Error(describe()));
    }, timeoutMs);
    const look = (): void => {
      const value = check();
      if (value === undefined) return;
      clearTimeout(timer);
      stop();
      resolve(value);
    };
    stop = dra.store.watch(resource, {}, () => look());
    look();
  });
}

/** The pools the driver must publish: one per resource of the plugin, with its device count. */
function expectedPools(ctx: DemoContext, dra: DraSide): Map<string, number> {
  return new Map(
    ctx.node.expected
      .filter((e) => e.plugin === DRA_PLUGIN)
      .map((e) => [`${dra.nodeName}/${e.resource}`, e.devices]),
  );
}

/** The driver's pools once each has its expected devices; fails naming `what` did not happen. */
export function untilPublished(
  ctx: DemoContext,
  dra: DraSide,
  what: string,
): Promise<Map<string, NonNullable<SliceSpec['devices']>>> {
  const expected = expectedPools(ctx, dra);
  return untilStored(
    dra,
    'resourceslices',
    () => {
      const pools = completePools(dra);
      const ok = [...expected].every(([pool, count]) => pools?.get(pool)?.length === count);
      return ok ? pools : undefined;
    },
    ctx.timeoutMs,
    () =>
      `${dra.driver} ${what} within ${ctx.timeoutMs / 1000} s (expected pools ${[...expected].map(([p, n]) => `${p} × ${n}`).join(', ')}); ` +
      `the last lines of its log:\n${logTail(dra.process)}`,
  );
}
