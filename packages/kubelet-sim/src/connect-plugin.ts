import type { DevicePluginOptions } from '@kdp/api';
import { isDialable } from '@kdp/base';
import { goErrorString } from './grpc-util';
import { type Connection, type KubeletState, type ResourceRecord, stallRpc } from './kubelet-state';
import { connectPluginEndpoint } from './plugin-endpoint';
import { applyResourceDevices, detachConnection, endResourceStream } from './resource-streams';
import type { PluginApiVersion } from './sim-events';

/** A plugin to connect: what its Register call or the plugin watcher's GetInfo said. */
export interface PluginToConnect {
  readonly resource: string;
  readonly endpointName: string;
  readonly socketPath: string;
  readonly api: PluginApiVersion;
  readonly version: string;
  readonly requestOptions: DevicePluginOptions | undefined;
  readonly via: 'register' | 'plugin-watcher';
}

/** P-12: exactly one ListAndWatch per registration, opened asynchronously, no deadline. */
function openListAndWatch(state: KubeletState, record: ResourceRecord, connection: Connection): void {
  setImmediate(() => {
    void stallRpc(state, 'listAndWatch').then(() => {
      if (connection.detached) return;
      connection.cancelStream = connection.endpoint.listAndWatch({
        onDevices: (devices) => applyResourceDevices(state, record, connection, devices),
        onEnd: (reason) => endResourceStream(state, record, connection, reason),
      });
    });
  });
}

/**
 * P-11, P-12: dials the plugin (blocking, with timeout), asks GetDevicePluginOptions, installs the resource
 * in place of an earlier registration (P-9, P-21, P-22), then opens ListAndWatch. Throws the kubelet's message.
 */
export async function connectPlugin(state: KubeletState, plugin: PluginToConnect): Promise<void> {
  const started = state.generation;
  const servingAtRegister = await isDialable(plugin.socketPath, 5000);
  const endpoint = await connectPluginEndpoint(
    plugin.socketPath,
    plugin.api,
    state.dialTimeoutMs,
    state.stopping.signal,
  );
  let pluginOptions: DevicePluginOptions;
  try {
    await stallRpc(state, 'getDevicePluginOptions');
    pluginOptions = await endpoint.getOptions();
  } catch (err) {
    endpoint.close();
    throw new Error(`failed to get device plugin options: ${goErrorString(err)}`, { cause: err });
  }
  if (state.closed || started !== state.generation) {
    endpoint.close();
    throw new Error('kubelet is restarting');
  }
  // P-9, P-21, P-22: a new registration replaces the old one; the old connection is closed.
  const previous = state.resources.get(plugin.resource);
  detachConnection(previous?.connection);
  if (previous?.graceTimer !== undefined) state.clock.clearTimeout(previous.graceTimer);
  const connection: Connection = { endpoint, detached: false };
  const record: ResourceRecord = {
    name: plugin.resource,
    endpointName: plugin.endpointName,
    socketPath: plugin.socketPath,
    apiVersion: plugin.api,
    options: pluginOptions,
    devices: previous?.devices ?? [],
    healthy: previous?.healthy ?? [],
    unhealthy: previous?.unhealthy ?? [],
    connection,
  };
  state.resources.set(plugin.resource, record);
  state.emit('registered', {
    resource: plugin.resource,
    endpoint: plugin.endpointName,
    version: plugin.version,
    options: pluginOptions,
    requestOptions: plugin.requestOptions,
    servingAtRegister,
    via: plugin.via,
  });
  openListAndWatch(state, record, connection);
}
