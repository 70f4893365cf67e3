import { isDialable, type LifecycleLogger } from '@kdp/base';
import { diagnoseRegistration } from './diagnose-registration';
import { createNotifier, type Notifier } from './notifier';
import type { ReregistrationReason } from './plugin-events';
import { registerWithKubelet, type ApiVersion } from './registration-client';
import type { ResourceDeclaration } from './resource-declaration';
import type { ResourceSocket } from './resource-socket';
import type { ResourceStateTracker } from './resource-state-tracker';
import { socketIdentity, type SocketIdentity } from './socket-identity';
import type { StopGate } from './stop-gate';

/** The mechanics of one registration round, as the registration loop drives them. */
export interface RegistrationRound {
  /** Serves a fresh socket (in kubelet mode once the kubelet is there: a starting kubelet deletes sockets, P-2). */
  serve(): Promise<void>;
  /** Registers the served socket; resolves with the API version the kubelet took. */
  register(): Promise<ApiVersion>;
  /** Resolves with why the registration was lost. */
  waitForDisconnect(): Promise<ReregistrationReason>;
  /** Shuts the current server down within the grace period. */
  closeServer(): Promise<void>;
  /** Waits up to `ms` before the next attempt (a kubelet coming back cuts it short); rejects once stopping. */
  pause(ms: number): Promise<void>;
  /** The API version of the last registration the kubelet accepted. */
  apiVersion(): ApiVersion | undefined;
}

/** The wake-ups a resource's watchers and server give its registration. */
export interface RegistrationSignals {
  /** "Look whether we are still registered." */
  readonly check: Notifier;
  /** "kubelet.sock may have appeared." */
  readonly kubeletChanged: Notifier;
  /** A plugin-watcher NotifyRegistrationStatus arrived. */
  readonly watcherNotified: Notifier;
}

/** What {@link createRegistrationRound} works with. */
export interface RegistrationRoundOptions<P> {
  readonly declaration: ResourceDeclaration<P>;
  readonly mode: 'kubelet' | 'plugin-watcher';
  readonly kubeletSocket: string;
  readonly socketPath: string;
  readonly apiVersions: readonly ApiVersion[];
  readonly registerTimeoutMs: number;
  readonly debounceMs: number;
  readonly shutdownTimeoutMs: number;
  readonly logger: LifecycleLogger;
  readonly gate: StopGate;
  readonly state: ResourceStateTracker;
  readonly socket: ResourceSocket;
  readonly signals: RegistrationSignals;
}

/** Creates the registration mechanics of one resource, in kubelet or plugin-watcher mode. */
export function createRegistrationRound<P>(options: RegistrationRoundOptions<P>): RegistrationRound {
  const { declaration, mode, kubeletSocket, socketPath, logger, gate, socket, signals } = options;
  const resource = declaration.name;
  let kubeletAtRegister: SocketIdentity | undefined;
  let apiVersion: ApiVersion | undefined;

  /** Waits until kubelet.sock exists and answers (a plugin may start before the kubelet). */
  const waitForKubelet = async (): Promise<void> => {
    let logged = false;
    for (;;) {
      gate.guard();
      if ((await socketIdentity(kubeletSocket)) !== undefined && (await isDialable(kubeletSocket, 500)))
        return;
      if (!logged) logger.info({ resource, kubeletSocket }, 'waiting for the kubelet socket');
      logged = true;
      await gate.waitFor(signals.kubeletChanged, 1000);
    }
  };

  /** P-36: the kubelet finds our socket, calls GetInfo, dials us, then reports the outcome. */
  const watcherVerdict = async (): Promise<ApiVersion> => {
    let status = socket.watcherStatus();
    while (status === undefined) {
      await gate.waitFor(signals.watcherNotified);
      status = socket.watcherStatus();
    }
    if (!status.registered) {
      throw new Error(`the kubelet rejected the plugin-watcher registration: ${status.error}`);
    }
    return 'v1beta1';
  };

  /** Calls the kubelet's Registration service, remembering which kubelet socket answered. */
  const kubeletRegister = async (): Promise<ApiVersion> => {
    kubeletAtRegister = await socketIdentity(kubeletSocket);
    return registerWithKubelet({
      kubeletSocket,
      socketPath,
      resource,
      options: {
        preStartRequired: declaration.options?.preStartRequired === true,
        getPreferredAllocationAvailable: declaration.options?.getPreferredAllocationAvailable === true,
      },
      timeoutMs: options.registerTimeoutMs,
      versions: options.apiVersions,
    });
  };

  return {
    async serve() {
      if (mode === 'kubelet') await waitForKubelet();
      await socket.rebind();
      options.state.set('serving', `listening on ${socketPath}`);
    },
    async register() {
      apiVersion = await (mode === 'plugin-watcher' ? watcherVerdict() : kubeletRegister());
      return apiVersion;
    },
    // Debounced: every signal asks for a check; a burst (socket deleted + kubelet.sock created) becomes one.
    async waitForDisconnect() {
      signals.check.notify(); // signals that arrived while registering are looked at now
      for (;;) {
        await gate.waitFor(signals.check);
        if (options.debounceMs > 0) await gate.waitFor(createNotifier(), options.debounceMs);
        const reason = await diagnoseRegistration({
          mode,
          kubeletSocket,
          kubeletAtRegister,
          socketPath,
          socket,
        });
        if (reason !== undefined) return reason;
      }
    },
    closeServer: () => socket.close(options.shutdownTimeoutMs),
    async pause(ms) {
      await gate.waitFor(signals.kubeletChanged, ms);
    },
    apiVersion: () => apiVersion,
  };
}
