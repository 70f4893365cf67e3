import { now } from '../plugin-processes';
import { waitUntil } from '../wait-until';
import { logTail, ms, type DemoContext } from './demo-context';

/**
 * Waits until every plugin registered each of its resources and advertised the expected number of devices, and
 * prints, per plugin, how long that took from its start. Fails naming the plugin and the tail of its log.
 */
export async function waitForRegistration(ctx: DemoContext): Promise<void> {
  const { sim, node } = ctx;
  const registeredAt = new Map<string, number>();
  const onRegistered = (event: { resource: string; at: number }): void => {
    if (!registeredAt.has(event.resource)) registeredAt.set(event.resource, event.at);
  };
  sim.events.on('registered', onRegistered);
  try {
    await Promise.all(
      ctx.plugins.map(async (plugin) => {
        const expected = node.expected.filter((e) => e.plugin === plugin.name);
        const missing = (): string[] =>
          expected
            .filter((e) => {
              const state = sim.resource(e.resource);
              return state?.registered !== true || state.devices.length < e.devices;
            })
            .map((e) => e.resource);
        await waitUntil(
          sim,
          () => (missing().length === 0 ? true : undefined),
          ctx.timeoutMs,
          () =>
            `the ${plugin.name} plugin did not register ${missing().join(', ')} with all devices within ` +
            `${ctx.timeoutMs / 1000} s; the last lines of its log:\n${logTail(plugin)}`,
        );
        const parts = expected.map((e) => {
          const count = sim.resource(e.resource)?.devices.length ?? 0;
          const at = registeredAt.get(e.resource) ?? now();
          return `${e.resource} (${count} device${count === 1 ? '' : 's'}) after ${ms(at - plugin.startedAt)}`;
        });
        ctx.view.log(`  ${plugin.name.padEnd(10)} registered ${parts.join(', ')}`);
      }),
    );
  } finally {
    sim.events.off('registered', onRegistered);
  }
}
