import { DevicePluginType, Version, pluginregistration } from '@kdp/api';

/** Plugin-watcher mode (P-36): the endpoint the kubelet dials and where its verdict goes. */
export interface PluginWatcherRegistration {
  readonly endpoint: string;
  readonly onStatus: (registered: boolean, error: string) => void;
}

/** The Registration service a plugin-watcher socket serves: GetInfo, then the kubelet's NotifyRegistrationStatus. */
export function createPluginWatcherService(
  resource: string,
  watcher: PluginWatcherRegistration,
): pluginregistration.RegistrationServer {
  return {
    getInfo: (_call, callback) =>
      callback(null, {
        type: DevicePluginType,
        name: resource,
        endpoint: watcher.endpoint,
        supportedVersions: [Version],
      }),
    notifyRegistrationStatus: (call, callback) => {
      callback(null, {});
      watcher.onStatus(call.request?.pluginRegistered === true, call.request?.error ?? '');
    },
  };
}
