import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { type Device, Healthy, KubeletSocketName } from '@kdp/api';
import { createTestPluginHandlers } from './test-plugin-handlers';
import { createTestPluginRegistration } from './test-plugin-registration';
import { createTestPluginServing } from './test-plugin-serving';
import type { TestPluginState } from './test-plugin-state';
import type { TestPlugin, TestPluginOptions } from './test-plugin-types';

export type { TestPlugin, TestPluginOptions } from './test-plugin-types';

/** The default devices: `dev-0`…`dev-3`, healthy, two per NUMA node. */
export function defaultTestDevices(): Device[] {
  return [0, 1, 2, 3].map((i) => ({
    ID: `dev-${i}`,
    health: Healthy,
    topology: { nodes: [{ ID: i < 2 ? 0 : 1 }] },
  }));
}

/** The state of a new test plugin: nothing served or registered yet. */
function initialState(options: TestPluginOptions): TestPluginState {
  const endpoint = options.endpoint ?? `tp-${randomBytes(4).toString('hex')}.sock`;
  return {
    options,
    resource: options.resource ?? 'example.com/dev',
    endpoint,
    socketPath: join(options.pluginsRegistryDir ?? options.dir, endpoint),
    kubeletSocket: join(options.dir, KubeletSocketName),
    pluginOptions: options.options ?? { preStartRequired: true, getPreferredAllocationAvailable: true },
    registrationStatus: [],
    statusWaiters: new Set(),
    streams: new Set(),
    devices: options.devices ?? defaultTestDevices(),
    server: undefined,
    stopped: false,
    registrations: 0,
    registerGeneration: 0,
    streamCount: 0,
    kubeletInode: undefined,
    registering: false,
    needsRegister: true,
    rebinding: undefined,
  };
}

/** Resolves once `count` NotifyRegistrationStatus calls arrived; rejects after `timeoutMs`. */
function statusReceived(
  state: TestPluginState,
  count: number,
  timeoutMs: number,
): Promise<TestPluginState['registrationStatus']> {
  const { registrationStatus, statusWaiters } = state;
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (registrationStatus.length < count) return;
      statusWaiters.delete(check);
      clearTimeout(timer);
      resolve([...registrationStatus]);
    };
    const timer = setTimeout(() => {
      statusWaiters.delete(check);
      reject(new Error(`test plugin: ${count} registration status call(s) not received in ${timeoutMs} ms`));
    }, timeoutMs);
    statusWaiters.add(check);
    check();
  });
}

/** Starts a test plugin in `dir`: serves its socket, registers, and keeps re-registering as a good plugin does. */
export async function createTestPlugin(options: TestPluginOptions): Promise<TestPlugin> {
  const state = initialState(options);
  // The handlers reach serving and registration only from calls, once all three exist.
  const handlers = createTestPluginHandlers({
    state,
    onLatestStreamEnd: () => registration.scheduleRegister(),
    stopServing: () => serving.stopServing(),
  });
  const serving = createTestPluginServing({ state, handlers });
  const registration = createTestPluginRegistration({ state, ensureServing: serving.ensureServing });
  const stopWatching = registration.watchKubelet();

  if (options.serveAfterRegisterMs === undefined) {
    await serving.serve();
    void registration.register();
  } else {
    void registration.register();
    setTimeout(() => void serving.serve().catch(() => undefined), options.serveAfterRegisterMs);
  }

  return {
    resource: state.resource,
    endpoint: state.endpoint,
    socketPath: state.socketPath,
    get registrations() {
      return state.registrations;
    },
    registrationStatus: state.registrationStatus,
    statusReceived: (count, timeoutMs = 10_000) => statusReceived(state, count, timeoutMs),
    setDevices: (next) => {
      state.devices = next;
      for (const stream of state.streams) stream.write({ devices: state.devices });
    },
    stop: async () => {
      state.stopped = true;
      stopWatching();
      // A rebind in flight must finish (and see `stopped`) before the socket is released.
      await state.rebinding?.catch(() => undefined);
      await serving.stopServing();
    },
  };
}
