import { existsSync, statSync } from 'node:fs';
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { RegistrationClient, v1alpha } from '@kdp/api';
import { pluginChannelOptions } from '../grpc-util';
import type { TestPluginState } from './test-plugin-state';

/** Registering a test plugin with the kubelet, and registering again as a good plugin does. */
export interface TestPluginRegistration {
  /** Registers, retrying until the kubelet accepts (it may not be up yet); nothing in plugin-watcher mode. */
  register(): Promise<void>;
  /** Registers again as `reregister` says: at once, after a delay, or never. */
  scheduleRegister(): void;
  /** Watches for a kubelet restart (own socket deleted, kubelet.sock replaced); returns the stop function. */
  watchKubelet(): () => void;
}

/** One Register call, with the v1beta1 or the old v1alpha API. */
function registerOnce(state: TestPluginState): Promise<void> {
  const { options } = state;
  return new Promise((resolve, reject) => {
    state.registerGeneration += 1;
    const address = `unix://${state.kubeletSocket}`;
    const done = (err: ServiceError | null): void => (err ? reject(err) : resolve());
    const deadline = { deadline: Date.now() + 15_000 };
    if (options.api === 'v1alpha2') {
      const client = new v1alpha.RegistrationClient(
        address,
        credentials.createInsecure(),
        pluginChannelOptions,
      );
      client.register(
        { version: options.version ?? 'v1alpha2', endpoint: state.endpoint, resourceName: state.resource },
        new Metadata(),
        deadline,
        (err: ServiceError | null) => {
          client.close();
          done(err);
        },
      );
      return;
    }
    const client = new RegistrationClient(address, credentials.createInsecure(), pluginChannelOptions);
    client.register(
      {
        version: options.version ?? 'v1beta1',
        endpoint: state.endpoint,
        resourceName: state.resource,
        options: options.registerOptions ?? state.pluginOptions,
      },
      new Metadata(),
      deadline,
      (err: ServiceError | null) => {
        client.close();
        done(err);
      },
    );
  });
}

/** Creates the registration part of a test plugin; `ensureServing` rebinds its socket before each Register. */
export function createTestPluginRegistration(options: {
  readonly state: TestPluginState;
  readonly ensureServing: () => Promise<void>;
}): TestPluginRegistration {
  const { state, ensureServing } = options;
  const reregister = state.options.reregister ?? 'immediately';
  const register = async (): Promise<void> => {
    if (state.registering || state.options.pluginsRegistryDir !== undefined) return;
    state.registering = true;
    try {
      while (!state.stopped && state.needsRegister) {
        state.needsRegister = false;
        try {
          if (!existsSync(state.kubeletSocket)) throw new Error('kubelet.sock missing');
          const kubeletInode = statSync(state.kubeletSocket).ino;
          await ensureServing();
          await registerOnce(state);
          state.kubeletInode = kubeletInode;
          state.registrations += 1;
        } catch {
          state.needsRegister = true;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    } finally {
      state.registering = false;
    }
  };
  let scheduled = false;
  // Once per disruption: a restart both ends the stream and replaces kubelet.sock, and a second Register would
  // replace the first one's stream, whose end would ask for a third (a loop that never lists).
  const scheduleRegister = (): void => {
    if (state.stopped || reregister === 'never' || scheduled || state.registering) return;
    scheduled = true;
    const go = (): void => {
      scheduled = false;
      state.needsRegister = true;
      void register();
    };
    if (typeof reregister === 'number') setTimeout(go, reregister);
    else go();
  };
  // A kubelet restart deletes our socket and recreates kubelet.sock (P-2, P-3): rebind, then register again.
  // In plugin-watcher mode the kubelet never deletes the socket: removing it means deregistering (P-36).
  const watchKubelet = (): (() => void) => {
    const poll = setInterval(() => {
      if (state.stopped || reregister === 'never' || state.options.pluginsRegistryDir !== undefined) return;
      if (scheduled || state.registering) return;
      const ownGone = state.server !== undefined && !existsSync(state.socketPath);
      let kubeletChanged = false;
      try {
        kubeletChanged =
          state.kubeletInode !== undefined && statSync(state.kubeletSocket).ino !== state.kubeletInode;
      } catch {
        kubeletChanged = false;
      }
      if (!ownGone && !kubeletChanged) return;
      state.kubeletInode = undefined;
      // A failed bind is retried on the next tick.
      ensureServing().then(scheduleRegister, () => undefined);
    }, 100);
    poll.unref();
    return () => clearInterval(poll);
  };
  return { register, scheduleRegister, watchKubelet };
}
