import type { ApiServer, PreparedClaim } from '@kdp/kubelet-sim';
import { DRA_PLUGIN, type PluginProcess } from '../plugin-processes';
import { logTail, type DemoContext } from './demo-context';

/** The DRA side of the demo node: the API server, the driver's process and where it writes. */
export interface DraSide {
  readonly api: ApiServer;
  readonly nodeName: string;
  /** `usb.kdp.dev`. */
  readonly driver: string;
  readonly cdiDir: string;
  readonly process: PluginProcess;
}

/** The pod whose ResourceClaim the DRA step prepared, and what it got. */
export interface DraPod {
  readonly pod: { readonly name: string; readonly uid: string };
  readonly claim: string;
  /** The claim's UID (its CDI spec files carry it). */
  readonly uid: string;
  /** Its devices and CDI IDs, compared after the kubelet restart. */
  readonly prepared: string;
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
  const specs = dra.api.store
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

/** Resolves once `check` gives a value, looked at after every change of the API server's ResourceSlices. */
function untilSlices<T>(
  dra: DraSide,
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
    stop = dra.api.store.watch('resourceslices', {}, look);
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
  return untilSlices(
    dra,
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

/** A prepare result as a comparable string: each device's pool, name and CDI IDs. */
export const describePrepared = (claims: readonly PreparedClaim[]): string =>
  JSON.stringify(
    claims.flatMap((c) => c.devices.map((d) => [d.poolName, d.deviceName, [...d.cdiDeviceIds].sort()])),
  );
