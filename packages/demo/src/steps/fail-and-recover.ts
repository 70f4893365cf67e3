import { now } from '../plugin-processes';
import { ms, type DemoContext } from './demo-context';

/**
 * Makes the sample node's failing device fail (its plugin must report it Unhealthy to the kubelet) and then
 * recover, printing how long each change took to reach kubelet-sim's ListAndWatch stream.
 */
export async function failAndRecover(ctx: DemoContext): Promise<void> {
  const { sim, view } = ctx;
  const { fault } = ctx.node;
  const id = fault.deviceId;
  const isFor = (e: { resource: string }): boolean => e.resource === fault.resource;
  const timeout = `within ${ctx.timeoutMs / 1000} s`;

  const unhealthy = sim.waitFor('devices', (e) => isFor(e) && e.unhealthy.includes(id), ctx.timeoutMs);
  const failedAt = now();
  fault.fail();
  view.log(`  ${fault.failure}: ${fault.resource} ${id}`);
  const seen = await unhealthy.catch(() => {
    throw new Error(
      `the ${fault.plugin} plugin did not report ${id} Unhealthy ${timeout} after "${fault.failure}"`,
    );
  });
  view.log(
    `  → kubelet-sim sees ${id} Unhealthy after ${ms(seen.at - failedAt)} (allocatable ${seen.healthy.length} of ${seen.devices.length})`,
  );
  view.snapshot(`after "${fault.failure}"`);

  const healthy = sim.waitFor('devices', (e) => isFor(e) && e.healthy.includes(id), ctx.timeoutMs);
  const recoveredAt = now();
  fault.recover();
  view.log(`  ${fault.recovery}`);
  const back = await healthy.catch(() => {
    throw new Error(
      `the ${fault.plugin} plugin did not report ${id} Healthy again ${timeout} after "${fault.recovery}"`,
    );
  });
  view.log(
    `  → kubelet-sim sees ${id} Healthy after ${ms(back.at - recoveredAt)} (allocatable ${back.healthy.length} of ${back.devices.length})`,
  );
}
