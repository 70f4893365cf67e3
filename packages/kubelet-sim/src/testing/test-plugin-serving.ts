import { existsSync } from 'node:fs';
import { Server } from '@grpc/grpc-js';
import { DevicePluginService, DevicePluginType, pluginregistration, v1alpha } from '@kdp/api';
import { bindUnix, stopServer } from '../grpc-util';
import type { TestPluginHandlers } from './test-plugin-handlers';
import type { TestPluginState } from './test-plugin-state';

/** Binding and unbinding a test plugin's socket. */
export interface TestPluginServing {
  /** Binds the socket with the plugin's services (and the plugin-watcher service in that mode). */
  serve(): Promise<void>;
  /** Binds again when the socket file was deleted (a kubelet restart, P-2), before any Register. */
  ensureServing(): Promise<void>;
  stopServing(): Promise<void>;
}

/** The plugin-watcher service (P-36): GetInfo names the plugin, NotifyRegistrationStatus is recorded. */
function registrationServer(state: TestPluginState): pluginregistration.RegistrationServer {
  return {
    getInfo: (_call, callback) =>
      callback(null, {
        type: state.options.pluginType ?? DevicePluginType,
        name: state.resource,
        endpoint: '',
        supportedVersions: [state.options.version ?? 'v1beta1'],
      }),
    notifyRegistrationStatus: (call, callback) => {
      state.registrationStatus.push(call.request);
      callback(null, {});
      for (const waiter of [...state.statusWaiters]) waiter();
    },
  };
}

/** Creates the serving part of a test plugin. */
export function createTestPluginServing(options: {
  readonly state: TestPluginState;
  readonly handlers: TestPluginHandlers;
}): TestPluginServing {
  const { state } = options;
  const serve = async (): Promise<void> => {
    const next = new Server();
    const { handlers } = options;
    if (state.options.api === 'v1alpha2') next.addService(v1alpha.DevicePluginService, handlers.v1alpha);
    else next.addService(DevicePluginService, handlers.v1beta1);
    if (state.options.pluginsRegistryDir !== undefined) {
      next.addService(pluginregistration.RegistrationService, registrationServer(state));
    }
    await bindUnix(next, state.socketPath);
    if (state.stopped) {
      await stopServer(next);
      return;
    }
    state.server = next;
  };
  const stopServing = async (): Promise<void> => {
    const current = state.server;
    state.server = undefined;
    state.streams.clear();
    if (current !== undefined) await stopServer(current);
  };
  const ensureServing = (): Promise<void> => {
    if (state.server === undefined || existsSync(state.socketPath))
      return state.rebinding ?? Promise.resolve();
    state.rebinding ??= (async () => {
      await stopServing();
      await serve();
    })().finally(() => {
      state.rebinding = undefined;
    });
    return state.rebinding;
  };
  return { serve, ensureServing, stopServing };
}
