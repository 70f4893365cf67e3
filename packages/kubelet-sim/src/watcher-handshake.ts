import { credentials } from '@grpc/grpc-js';
import { DevicePluginType, pluginregistration, SupportedVersions, validateResourceName } from '@kdp/api';
import { callUnary, pluginChannelOptions } from './grpc-util';

/**
 * Why the kubelet refuses a plugin-watcher plugin, in its words (P-36), or undefined when it accepts it: the
 * type must be `DevicePlugin`, `v1beta1` must be supported, the name must be an extended resource name.
 */
export function watcherValidationProblem(info: pluginregistration.PluginInfo): string | undefined {
  if (info.type !== DevicePluginType) return `no handler registered for plugin type: ${info.type}`;
  if (!info.supportedVersions.some((v) => SupportedVersions.includes(v))) {
    return `manager version, ${SupportedVersions[0]}, is not among plugin supported versions [${info.supportedVersions.join(' ')}]`;
  }
  const name = validateResourceName(info.name);
  return name.valid ? undefined : `invalid name of device plugin socket: ${name.message}`;
}

/** What {@link handshakeWatchedPlugin} needs from the device manager. */
export interface WatcherHandshakeOptions {
  readonly socketPath: string;
  readonly timeoutMs: number;
  /** Connects to the plugin's service socket as Register does (P-11); rejects with the kubelet's message. */
  connect(plugin: { resource: string; endpoint: string }): Promise<void>;
  onRejected(rejection: { resource: string; endpoint: string; message: string }): void;
  /** GetInfo failed (the socket does not answer yet, or is no plugin): the kubelet's reconciler tries again. */
  onUnreachable?(): void;
  /**
   * Handlers of other plugin types by `PluginInfo.type` (e.g. `DRAPlugin`): each validates and registers the
   * plugin, throwing the kubelet's message to refuse it.
   */
  readonly handlers?: Readonly<
    Record<string, (info: pluginregistration.PluginInfo, endpoint: string) => Promise<void> | void>
  >;
}

/**
 * The plugin-watcher handshake with one registration socket (P-36): GetInfo, validation, connection, then
 * NotifyRegistrationStatus with the outcome. Resolves with the registered resource, or undefined.
 */
export async function handshakeWatchedPlugin(options: WatcherHandshakeOptions): Promise<string | undefined> {
  const { socketPath, timeoutMs } = options;
  const client = new pluginregistration.RegistrationClient(
    `unix://${socketPath}`,
    credentials.createInsecure(),
    pluginChannelOptions,
  );
  const notify = (registered: boolean, error: string): Promise<unknown> =>
    callUnary(
      client,
      client.notifyRegistrationStatus,
      { pluginRegistered: registered, error },
      timeoutMs,
    ).catch(() => undefined);
  try {
    const info = await callUnary(client, client.getInfo, {}, timeoutMs);
    // An empty endpoint means the service is on the registration socket itself.
    const endpoint = info.endpoint === '' ? socketPath : info.endpoint;
    const handler = options.handlers?.[info.type];
    let problem = handler === undefined ? watcherValidationProblem(info) : undefined;
    if (problem === undefined) {
      try {
        if (handler !== undefined) await handler(info, endpoint);
        else await options.connect({ resource: info.name, endpoint });
      } catch (err) {
        problem = err instanceof Error ? err.message : String(err);
      }
    }
    if (problem !== undefined) {
      options.onRejected({ resource: info.name, endpoint, message: problem });
      await notify(false, problem);
      return undefined;
    }
    await notify(true, '');
    return info.name;
  } catch {
    // A socket that does not answer GetInfo (yet): the kubelet's reconciler retries it, with backoff.
    options.onUnreachable?.();
    return undefined;
  } finally {
    client.close();
  }
}
