/** The device-plugin API version the kubelet accepts in Register. */
export const Version = 'v1beta1';

/** Every API version a current kubelet accepts (`SupportedVersions`). */
export const SupportedVersions: readonly string[] = [Version];

/** The API version string of the old v1alpha API (proto package `deviceplugin`). */
export const V1alphaVersion = 'v1alpha2';

/** Health of a device that may be allocated; matching is exact and case-sensitive. */
export const Healthy = 'Healthy';

/** Health of a device that must not be allocated; any string but `Healthy` counts as this. */
export const Unhealthy = 'Unhealthy';

/** The kubelet's device-plugin socket directory (with its trailing slash, as upstream). */
export const DevicePluginPath = '/var/lib/kubelet/device-plugins/';

/** File name of the kubelet's Registration socket inside the device-plugin directory. */
export const KubeletSocketName = 'kubelet.sock';

/** Full path of the kubelet's Registration socket. */
export const KubeletSocket = `${DevicePluginPath}${KubeletSocketName}`;

/** File name of the device manager's checkpoint inside the device-plugin directory. */
export const CheckpointFileName = 'kubelet_internal_checkpoint';

/** Full path of the kubelet's pod-resources socket. */
export const PodResourcesSocket = '/var/lib/kubelet/pod-resources/kubelet.sock';

/** Directory the kubelet's plugin watcher scans for registration sockets. */
export const PluginsRegistryPath = '/var/lib/kubelet/plugins_registry';

/** Plugin type a device plugin reports in plugin-watcher GetInfo. */
export const DevicePluginType = 'DevicePlugin';

/** Seconds the kubelet waits for PreStartContainer (`KubeletPreStartContainerRPCTimeoutInSecs`). */
export const PreStartContainerTimeoutSeconds = 30;

/** Milliseconds the kubelet allows for dialling a plugin's socket during Register. */
export const PluginDialTimeoutMs = 10_000;

/** Milliseconds a stopped endpoint's resource is kept before the kubelet drops it. */
export const EndpointStopGracePeriodMs = 5 * 60 * 1000;

/** Longest unix socket path Linux accepts, in bytes (108 including the terminating NUL). */
export const UnixSocketPathMaxBytes = 107;

/** Documented maximum length of a device ID (the kubelet does not enforce it). */
export const DeviceIdMaxLength = 63;
