import { waitUntil } from '../wait-until';
import { logTail, ms, type DemoContext } from './demo-context';

/**
 * Restarts the kubelet (kubelet-sim deletes every socket in the device-plugin directory and serves kubelet.sock
 * again) and prints, per plugin, how long after kubelet.sock came back each resource registered again with its
 * devices. Fails naming a plugin that does not come back.
 */
export async function restartKubelet(ctx: DemoContext): Promise<void> {
  const { sim, node } = ctx;
  const registeredAt = new Map<string, number>();
  const devicesAt = new Map<string, number>();
  const onEvent = (event: { type: string; at: number; resource?: string }): void => {
    if (event.resource === undefined) return;
    if (event.type === 'registered' && !registeredAt.has(event.resource))
      registeredAt.set(event.resource, event.at);
    if (event.type === 'devices' && registeredAt.has(event.resource) && !devicesAt.has(event.resource))
      devicesAt.set(event.resource, event.at);
  };
  const restarted = sim.waitFor('restarted', undefined, ctx.timeoutMs);
  restarted.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
  sim.events.on('event', onEvent);
  try {
    await sim.restart();
    const { at: restartedAt } = await restarted;
    ctx.view.log('  kubelet.sock is back; every plugin socket was deleted');
    await Promise.all(
      ctx.plugins.map(async (plugin) => {
        const expected = node.expected.filter((e) => e.plugin === plugin.name);
        const missing = (): string[] =>
          expected
            .filter((e) => !devicesAt.has(e.resource) || sim.resource(e.resource)?.registered !== true)
            .map((e) => e.resource);
        await waitUntil(
          sim,
          () => (missing().length === 0 ? true : undefined),
          ctx.timeoutMs,
          () =>
            `the ${plugin.name} plugin did not re-register ${missing().join(', ')} within ${ctx.timeoutMs / 1000} s ` +
            `of the kubelet restart; the last lines of its log:\n${logTail(plugin)}`,
        );
        const parts = expected.map((e) => {
          const registered = (registeredAt.get(e.resource) ?? restartedAt) - restartedAt;
          const listed = (devicesAt.get(e.resource) ?? restartedAt) - restartedAt;
          return `${e.resource} after ${ms(registered)} (devices after ${ms(listed)})`;
        });
        ctx.view.log(`  ${plugin.name.padEnd(10)} re-registered ${parts.join(', ')}`);
      }),
    );
  } finally {
    sim.events.off('event', onEvent);
  }
}
