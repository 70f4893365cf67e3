import type { pluginregistration } from '@kdp/api';

/** The kubelet's answer to a registration: NotifyRegistrationStatus. */
export interface RegistrationStatus {
  readonly registered: boolean;
  readonly error: string;
}

/** Options of {@link createRegistrationService}. */
export interface RegistrationServiceOptions {
  /** GetInfo's `type` (`DRAPlugin`). */
  readonly type: string;
  readonly driverName: string;
  /** The DRA socket the kubelet dials. */
  readonly endpoint: string;
  /** The services, in preference order. */
  readonly supportedVersions: readonly string[];
  readonly onStatus: (status: RegistrationStatus) => void;
}

/** The plugin-watcher Registration service: GetInfo names the driver and its socket, the kubelet reports back. */
export function createRegistrationService(
  options: RegistrationServiceOptions,
): pluginregistration.RegistrationServer {
  return {
    getInfo: (_call, callback) =>
      callback(null, {
        type: options.type,
        name: options.driverName,
        endpoint: options.endpoint,
        supportedVersions: [...options.supportedVersions],
      }),
    notifyRegistrationStatus: (call, callback) => {
      callback(null, {});
      options.onStatus({
        registered: call.request?.pluginRegistered === true,
        error: call.request?.error ?? '',
      });
    },
  };
}
