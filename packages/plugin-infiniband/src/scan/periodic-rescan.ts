import type { Clock, LifecycleLogger } from '@kdp/base';

/** Upstream's rediscovery period when `periodicUpdateInterval` is absent (60 s). */
export const DEFAULT_PERIODIC_UPDATE_S = 60;

/** What {@link startPeriodicRescan} needs of the plugin's setup context. */
export interface PeriodicRescanContext {
  readonly command: 'serve' | 'discover';
  /** The running configuration (read at every tick, so a reload applies from the next one). */
  readonly config: { readonly periodicUpdateInterval?: number | undefined };
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly logger: Pick<LifecycleLogger, 'info'>;
  rescan(): void;
}

/** The period of the full rescan in ms: `periodicUpdateInterval` seconds (absent: 60 s, 0: none). */
export function periodicRescanMs(config: PeriodicRescanContext['config']): number | undefined {
  const seconds = config.periodicUpdateInterval ?? DEFAULT_PERIODIC_UPDATE_S;
  return seconds > 0 ? seconds * 1000 : undefined;
}

/**
 * k8s-rdma-shared-dev-plugin's `periodicUpdateInterval`, with its meaning: a full rediscovery every that many
 * seconds (absent: 60, 0: none). Here it comes on top of the change probe, which notices RDMA devices and port
 * states within `--poll-interval`: the period bounds how late anything the probe does not watch (an interface
 * renamed, a driver rebound behind the same RDMA device) reaches the kubelet. `serve` only; stops with `signal`.
 */
export function startPeriodicRescan(ctx: PeriodicRescanContext): void {
  if (ctx.command !== 'serve') return;
  let timer: ReturnType<Clock['setTimeout']> | undefined;
  let announced: number | undefined | null = null;
  const schedule = (): void => {
    const ms = periodicRescanMs(ctx.config);
    if (ms !== announced) {
      announced = ms;
      ctx.logger.info(
        { periodicUpdateInterval: ctx.config.periodicUpdateInterval ?? null },
        ms === undefined
          ? 'periodicUpdateInterval 0: no periodic full rescan (the change probe still runs)'
          : `periodicUpdateInterval: a full rescan every ${ms / 1000}s besides the change probe`,
      );
    }
    // With none configured, look again after a minute: a reload may set one.
    timer = ctx.clock.setTimeout(
      () => {
        if (ms !== undefined) ctx.rescan();
        schedule();
      },
      ms ?? DEFAULT_PERIODIC_UPDATE_S * 1000,
    );
  };
  ctx.signal.addEventListener('abort', () => {
    if (timer !== undefined) ctx.clock.clearTimeout(timer);
  });
  if (!ctx.signal.aborted) schedule();
}
