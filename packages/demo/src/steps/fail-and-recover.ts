import type { PluginLogEntry } from '../plugin-processes';
import { ms, type DemoContext } from './demo-context';
import { now } from '../plugin-processes';

/**
 * Makes the sample node's failing device fail (its plugin must report it Unhealthy to the kubelet and log the
 * runtime's `device unhealthy` line with the problem) and then recover (`device healthy again`), printing how
 * long each change took to reach kubelet-sim's ListAndWatch stream and what the plugin logged.
 */
export async function failAndRecover(ctx: DemoContext): Promise<void> {
  const { sim, view, logs } = ctx;
  const { fault } = ctx.node;
  const id = fault.deviceId;
  const isFor = (e: { resource: string }): boolean => e.resource === fault.resource;
  const logged =
    (msg: string) =>
    (e: PluginLogEntry): boolean =>
      e.plugin === fault.plugin && e.msg === msg && e.fields['device'] === id;
  const within = `within ${ctx.timeoutMs / 1000} s`;

  const unhealthy = sim.waitFor('devices', (e) => isFor(e) && e.unhealthy.includes(id), ctx.timeoutMs);
  const unhealthyLog = logs.waitFor(logged('device unhealthy'), ctx.timeoutMs);
  unhealthyLog.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
  const failedAt = now();
  fault.fail();
  view.log(`  ${fault.failure}: ${fault.resource} ${id}`);
  const seen = await unhealthy.catch(() => {
    throw new Error(
      `the ${fault.plugin} plugin did not report ${id} Unhealthy ${within} after "${fault.failure}"`,
    );
  });
  view.log(
    `  → kubelet-sim sees ${id} Unhealthy after ${ms(seen.at - failedAt)} (allocatable ${seen.healthy.length} of ${seen.devices.length})`,
  );
  const warned = await unhealthyLog.catch(() => {
    throw new Error(`the ${fault.plugin} plugin did not log "device unhealthy" for ${id} ${within}`);
  });
  view.log(
    `  → the ${fault.plugin} plugin logged "device unhealthy", problem: ${String(warned.fields['problem'])}`,
  );
  view.snapshot(`after "${fault.failure}"`);

  const healthy = sim.waitFor('devices', (e) => isFor(e) && e.healthy.includes(id), ctx.timeoutMs);
  const healthyLog = logs.waitFor(logged('device healthy again'), ctx.timeoutMs);
  healthyLog.catch(() => undefined);
  const recoveredAt = now();
  fault.recover();
  view.log(`  ${fault.recovery}`);
  const back = await healthy.catch(() => {
    throw new Error(
      `the ${fault.plugin} plugin did not report ${id} Healthy again ${within} after "${fault.recovery}"`,
    );
  });
  view.log(
    `  → kubelet-sim sees ${id} Healthy after ${ms(back.at - recoveredAt)} (allocatable ${back.healthy.length} of ${back.devices.length})`,
  );
  await healthyLog.catch(() => {
    throw new Error(`the ${fault.plugin} plugin did not log "device healthy again" for ${id} ${within}`);
  });
  view.log(`  → the ${fault.plugin} plugin logged "device healthy again"`);
}
