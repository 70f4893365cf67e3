import { isAbsolute, join } from 'node:path';
import { Version } from '@kdp/api';
import { connectPlugin } from './connect-plugin';
import type { DraManager } from './dra/dra-manager';
import { DraPluginType } from './dra/dra-services';
import type { KubeletState } from './kubelet-state';
import { endResourceStream } from './resource-streams';
import { handshakeWatchedPlugin } from './watcher-handshake';

/** The plugin watcher's handlers: a socket appeared in, or left, the plugins registry. */
export interface WatchedPlugins {
  /** P-36: GetInfo, validate, connect (a device plugin, or a DRA driver), NotifyRegistrationStatus. */
  added(socketPath: string): Promise<void>;
  /** P-36: removing the registration socket deregisters the plugin. */
  removed(socketPath: string): void;
}

/** Creates the plugin watcher's handlers; DRA drivers go to `dra` when DRA is on. */
export function createWatchedPlugins(options: {
  readonly state: KubeletState;
  readonly dra: DraManager | undefined;
}): WatchedPlugins {
  const { state, dra } = options;
  const added = async (socketPath: string): Promise<void> => {
    const resource = await handshakeWatchedPlugin({
      socketPath,
      timeoutMs: state.dialTimeoutMs,
      connect: ({ resource: name, endpoint }) =>
        connectPlugin(state, {
          resource: name,
          endpointName: endpoint,
          socketPath: isAbsolute(endpoint) ? endpoint : join(state.dir, endpoint),
          api: 'v1beta1',
          version: Version,
          requestOptions: undefined,
          via: 'plugin-watcher',
        }),
      onRejected: ({ resource: name, endpoint, message }) =>
        state.emit('register-rejected', { resource: name, endpoint, version: '', message }),
      ...(dra === undefined
        ? {}
        : {
            handlers: {
              [DraPluginType]: (info, endpoint) =>
                dra.registerPlugin(
                  { name: info.name, endpoint, supportedVersions: info.supportedVersions },
                  socketPath,
                ),
            },
          }),
      // P-36: the reconciler retries a socket whose GetInfo failed (e.g. found between bind and listen), every
      // second while it is there.
      onUnreachable: () => {
        const current = state.watcher;
        const timer = setTimeout(() => {
          if (!state.closed && state.watcher === current && current?.has(socketPath)) void added(socketPath);
        }, 1000);
        timer.unref();
      },
    });
    if (resource !== undefined) state.watched.set(socketPath, resource);
  };
  const removed = (socketPath: string): void => {
    dra?.onSocketRemoved(socketPath);
    const resource = state.watched.get(socketPath);
    state.watched.delete(socketPath);
    const record = resource === undefined ? undefined : state.resources.get(resource);
    if (record?.connection !== undefined)
      endResourceStream(state, record, record.connection, 'plugin-watcher socket removed');
  };
  return { added, removed };
}
