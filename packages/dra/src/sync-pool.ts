import type { LifecycleLogger } from '@kdp/base';
import { KubeApiError } from '@kdp/core';
import type { DesiredPool } from './desired-pools';
import { forEachLimited } from './for-each-limited';
import { planPool, type PoolPlan } from './plan-pool';
import type { SliceObject } from './slice-object';
import type { SlicePublisherEvent } from './slice-publisher-event';
import type { SliceWriter } from './slice-writer';
import { SliceVersionError } from './slice-version';

/** What the publisher remembers per pool across reconciles. */
export interface PoolHistory {
  /** The highest generation written per pool, so a wiped pool comes back with a higher one. */
  readonly lastGeneration: Map<string, number>;
  /** The content of pools the API server refused (422), not written again until it changes. */
  readonly rejected: Map<string, string>;
}

/** Everything {@link syncPool} works with besides the pool itself. */
export interface PoolSyncContext {
  readonly driverName: string;
  readonly nodeName: string;
  /** The Node's UID: the owner of every slice. */
  readonly nodeUid: string | undefined;
  /** `generateName` of new slices. */
  readonly generateName: string;
  readonly keepGenerationForSingleUpdate: boolean;
  readonly writer: SliceWriter;
  readonly history: PoolHistory;
  readonly logger: LifecycleLogger;
  readonly emit: (event: SlicePublisherEvent) => void;
}

/**
 * Makes one pool's stored slices (`existing`) what the device model wants: deletes them all for a pool that is
 * gone, else writes what {@link planPool} says. A 422, or a field the API server's `resource.k8s.io` version lacks
 * ({@link SliceVersionError}), is reported and remembered, not thrown; other failures are.
 */
export async function syncPool(
  context: PoolSyncContext,
  pool: string,
  existing: readonly SliceObject[],
  want: DesiredPool | undefined,
): Promise<void> {
  const { history, logger, driverName } = context;
  if (want === undefined) {
    for (const slice of existing) await context.writer.remove(slice);
    history.lastGeneration.delete(pool);
    history.rejected.delete(pool);
    logger.info({ driver: driverName, pool, deleted: existing.length }, 'ResourceSlice pool removed');
    context.emit({ type: 'removed', pool, deleted: existing.length });
    return;
  }
  if (history.rejected.get(pool) === want.key) return;
  history.rejected.delete(pool);
  const plan = planPool({
    existing,
    want,
    lastGeneration: history.lastGeneration.get(pool) ?? 0,
    nodeUid: context.nodeUid,
    keepGenerationForSingleUpdate: context.keepGenerationForSingleUpdate,
  });
  if (plan.upToDate) {
    history.lastGeneration.set(pool, plan.generation);
    return;
  }
  try {
    await writePlan(context, pool, want, plan);
  } catch (error) {
    const refused = error instanceof KubeApiError && error.status === 422;
    if (refused || error instanceof SliceVersionError) {
      const causes = refused ? error.causes : [];
      history.rejected.set(pool, want.key);
      logger.error(
        { driver: driverName, pool, causes },
        `ResourceSlices of pool ${pool} refused: ${error.message}`,
      );
      context.emit({ type: 'rejected', pool, message: error.message, causes });
      return;
    }
    throw error;
  }
  const result = {
    pool,
    generation: plan.generation,
    created: plan.toCreate.length,
    updated: plan.toUpdate.length,
    deleted: plan.obsolete.length,
  };
  logger.info({ driver: driverName, ...result }, 'ResourceSlices published');
  context.emit({ type: 'published', ...result });
}

/**
 * How many writes of one pool are sent at once: a pool's slices are independent objects, and the round trips of
 * a pool of 16 slices then overlap rather than add up (a Go resourceslice controller writes them one by one).
 */
const WRITES_IN_FLIGHT = 4;

/**
 * Deletes the obsolete slices, updates the matched ones, creates the rest — each step a few writes at a time, and
 * a failed write ends the pool (once the writes in flight are done) before the next step; records each written
 * generation.
 */
async function writePlan(
  context: PoolSyncContext,
  pool: string,
  want: DesiredPool,
  plan: PoolPlan,
): Promise<void> {
  const { writer, history } = context;
  const { generation } = plan;
  const spec = (i: number): SliceObject['spec'] => ({
    driver: context.driverName,
    nodeName: context.nodeName,
    pool: { name: pool, generation, resourceSliceCount: want.slices.length },
    ...(want.slices[i]?.sharedCounters !== undefined
      ? { sharedCounters: want.slices[i]?.sharedCounters }
      : { devices: want.slices[i]?.devices ?? [] }),
  });
  const ownerReferences = [
    { apiVersion: 'v1', kind: 'Node', name: context.nodeName, uid: context.nodeUid, controller: true },
  ];
  const wrote = (): void => {
    history.lastGeneration.set(pool, Math.max(history.lastGeneration.get(pool) ?? 0, generation));
  };
  const kind = { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice' };
  await forEachLimited(plan.obsolete, WRITES_IN_FLIGHT, (slice) => writer.remove(slice));
  await forEachLimited(plan.toUpdate, WRITES_IN_FLIGHT, async (i) => {
    const current = plan.matched.get(i) as SliceObject;
    const metadata = { ...current.metadata, ownerReferences };
    await writer.update(current.metadata.name, { ...current, ...kind, metadata, spec: spec(i) });
    wrote();
  });
  await forEachLimited(plan.toCreate, WRITES_IN_FLIGHT, async (i) => {
    const metadata = { generateName: context.generateName, ownerReferences };
    await writer.create({ ...kind, metadata, spec: spec(i) });
    wrote();
  });
}
