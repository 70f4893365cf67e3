import { ms, type DemoContext } from './demo-context';
import { waitForEachPlugin } from './wait-for-each-plugin';

/**
 * Restarts the kubelet (kubelet-sim deletes every socket in the device-plugin directory and serves kubelet.sock
 * again) and prints, per plugin, how long after kubelet.sock came back each resource registered again with its
 * devices. Fails naming a plugin that does not come back.
 */
export async function restartKubelet(ctx: DemoContext): Promise<void> {
  const { sim } = ctx;
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
    await waitForEachPlugin(ctx, {
      ready: (e) => devicesAt.has(e.resource) && sim.resource(e.resource)?.registered === true,
      failure: 'did not re-register',
      report: (_plugin, expected) => {
        const parts = expected.map((e) => {
          const registered = (registeredAt.get(e.resource) ?? restartedAt) - restartedAt;
          const listed = (devicesAt.get(e.resource) ?? restartedAt) - restartedAt;
          return `${e.resource} after ${ms(registered)} (devices after ${ms(listed)})`;
        });
        return `re-registered ${parts.join(', ')}`;
      },
    });
  } finally {
    sim.events.off('event', onEvent);
  }
}
