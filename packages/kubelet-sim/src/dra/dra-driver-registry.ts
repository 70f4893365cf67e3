import { connectDraEndpoint, type DraEndpoint } from './dra-endpoint';
import type { DraHealthTracker } from './dra-health-tracker';
import type { DraManagerState } from './dra-manager-state';
import type { DraManager } from './dra-manager-types';
import { chooseDraServices } from './dra-services';
import type { DraSliceWiper } from './dra-slice-wiper';

/** The registered DRA drivers and their endpoints. */
export interface DraDriverRegistry {
  /** The DRAPlugin handler of the plugin watcher: validates and adds the endpoint, or throws the kubelet's message. */
  register: DraManager['registerPlugin'];
  /** Removes the endpoint registered through `socketPath`, if any. */
  removeSocket(socketPath: string): void;
  /** Closes every endpoint and forgets every driver. */
  clear(): void;
}

/** Options of {@link createDraDriverRegistry}. */
export interface DraDriverRegistryOptions {
  readonly state: DraManagerState;
  readonly health: DraHealthTracker;
  readonly slices: DraSliceWiper;
}

/** The kubelet's GetPlugin: the newest connected endpoint of `driver`, else its newest. */
export function draPluginFor(state: DraManagerState, driver: string): DraEndpoint {
  if (driver === '') throw new Error('DRA driver name is empty');
  const endpoints = state.drivers.get(driver) ?? [];
  const chosen = [...endpoints].reverse().find((e) => e.connected) ?? endpoints[endpoints.length - 1];
  if (chosen === undefined) throw new Error(`DRA driver ${driver} is not registered`);
  return chosen;
}

/** Creates the driver registry of a DRA manager. */
export function createDraDriverRegistry(options: DraDriverRegistryOptions): DraDriverRegistry {
  const { state, health, slices } = options;
  const { emit } = state.options;

  const register: DraManager['registerPlugin'] = (info, socketPath) => {
    const driver = info.name;
    const endpointPath = info.endpoint === '' ? socketPath : info.endpoint;
    const chosen = chooseDraServices(driver, endpointPath, info.supportedVersions);
    if ('problem' in chosen) throw new Error(chosen.problem);
    const endpoints = state.drivers.get(driver) ?? [];
    if (endpoints.some((e) => e.endpoint === endpointPath)) {
      // One plugin instance cannot hijack the endpoint of another instance.
      throw new Error(`endpoint ${endpointPath} already registered for DRA driver plugin ${driver}`);
    }
    const endpoint = connectDraEndpoint({
      driver,
      endpoint: endpointPath,
      socketPath,
      service: chosen.service,
      healthService: chosen.healthService,
      onConnectedChange: (connected) => {
        emit('dra-connection', { driver, endpoint: endpointPath, connected });
        slices.syncDriver(driver);
      },
    });
    state.drivers.set(driver, [...endpoints, endpoint]);
    state.bySocket.set(socketPath, endpoint);
    emit('dra-registered', {
      driver,
      endpoint: endpointPath,
      service: chosen.service,
      ...(chosen.healthService === undefined ? {} : { healthService: chosen.healthService }),
      socketPath,
    });
    if (chosen.healthService !== undefined) health.start(endpoint);
    slices.syncDriver(driver);
  };

  const remove = (endpoint: DraEndpoint): void => {
    state.bySocket.delete(endpoint.socketPath);
    health.stop(endpoint);
    endpoint.close();
    const rest = (state.drivers.get(endpoint.driver) ?? []).filter((e) => e !== endpoint);
    if (rest.length === 0) state.drivers.delete(endpoint.driver);
    else state.drivers.set(endpoint.driver, rest);
    slices.syncDriver(endpoint.driver);
  };

  return {
    register,
    removeSocket: (socketPath) => {
      const endpoint = state.bySocket.get(socketPath);
      if (endpoint !== undefined) remove(endpoint);
    },
    clear: () => {
      for (const endpoint of state.bySocket.values()) {
        health.stop(endpoint);
        endpoint.close();
      }
      state.bySocket.clear();
      state.drivers.clear();
    },
  };
}
