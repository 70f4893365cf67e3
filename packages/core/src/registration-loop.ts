import { basename, join } from 'node:path';
import type { Clock, LifecycleLogger } from '@kdp/base';
import type { DevicePluginEvent, ReregistrationReason } from './plugin-events';
import type { ApiVersion } from './registration-client';
import type { RegistrationRound } from './registration-round';
import type { ResourceStateTracker } from './resource-state-tracker';
import { removeStaleSockets } from './stale-sockets';
import { Stopped, type StopGate } from './stop-gate';

/** How a resource registers: its mode and clock, where it reports, and how it retries. */
export interface RegistrationPolicy {
  readonly mode: 'kubelet' | 'plugin-watcher';
  readonly clock: Clock;
  readonly logger: LifecycleLogger;
  readonly emit: (event: DevicePluginEvent) => void;
  /** Delay before retry number `attempt` (1-based). */
  readonly backoff: (attempt: number) => number;
  /** Failed attempts in a row after which the resource gives up. */
  readonly maxAttempts: number;
}

/** What {@link runRegistrationLoop} drives and where it reports. */
export interface RegistrationLoopOptions extends RegistrationPolicy {
  readonly resource: string;
  readonly socketPath: string;
  readonly gate: StopGate;
  readonly state: ResourceStateTracker;
  readonly round: RegistrationRound;
}

/**
 * Serve → register → wait for a disconnect → again, until stopped; failed attempts back off, and after
 * `maxAttempts` in a row the resource gives up. Stale sockets of dead instances are removed first.
 */
export async function runRegistrationLoop(options: RegistrationLoopOptions): Promise<void> {
  const { resource, socketPath, clock, logger, emit, gate, state, round } = options;
  let reason: ReregistrationReason | undefined;
  let everRegistered = false;
  let leftAt = clock.now();
  let attempt = 0;
  for (const path of await removeStaleSockets(join(socketPath, '..'), socketPath)) {
    logger.info({ resource, path }, 'removed a stale socket of a dead instance');
  }
  while (!gate.stopping) {
    try {
      await round.serve();
      state.set('registering', reason ?? 'first registration');
      const apiVersion = await round.register();
      gate.guard();
      attempt = 0;
      state.set('registered', `registered with API ${apiVersion}`);
      reportRegistered(options, { apiVersion, everRegistered, reason, leftAt });
      everRegistered = true;
      reason = await round.waitForDisconnect();
      leftAt = clock.now();
      state.set('disconnected', reason);
      void round.closeServer(); // P-21: sever the old stream before anything else
      logger.warn({ resource, reason }, 'registration lost; registering again');
    } catch (error) {
      if (gate.stopping || error instanceof Stopped) break;
      attempt += 1;
      const message = error instanceof Error ? error.message : String(error);
      if (attempt >= options.maxAttempts) {
        await round.closeServer();
        state.set('stopped', `gave up after ${attempt} attempts: ${message}`);
        emit({ type: 'gave-up', resource, at: clock.now(), attempts: attempt, message });
        logger.error({ resource, attempts: attempt, message }, 'giving up registering');
        return;
      }
      const retryInMs = options.backoff(attempt);
      emit({ type: 'register-failed', resource, at: clock.now(), attempt, message, retryInMs });
      logger.warn({ resource, attempt, retryInMs, message }, 'registration failed; retrying');
      if (everRegistered) reason ??= 'registration-failed';
      state.set('backoff', message);
      try {
        await round.pause(retryInMs);
      } catch {
        break;
      }
    }
  }
}

/** The `registered` event and log line of one successful registration. */
function reportRegistered(
  options: RegistrationLoopOptions,
  outcome: {
    apiVersion: ApiVersion;
    everRegistered: boolean;
    reason: ReregistrationReason | undefined;
    /** When the resource left `registered` (or started). */
    leftAt: number;
  },
): void {
  const { resource, clock } = options;
  const { apiVersion, everRegistered, reason } = outcome;
  const endpoint = basename(options.socketPath);
  options.emit({
    type: 'registered',
    resource,
    at: clock.now(),
    endpoint,
    apiVersion,
    mode: options.mode,
    reregistration: everRegistered,
    ...(everRegistered && reason !== undefined ? { reason } : {}),
    durationMs: clock.now() - outcome.leftAt,
  });
  options.logger.info(
    { resource, endpoint, apiVersion, reason: everRegistered ? reason : undefined },
    everRegistered ? 're-registered with the kubelet' : 'registered with the kubelet',
  );
}
