/** The DRAPlugin services this kubelet calls, newest first. */
export const draPluginServices = ['v1.DRAPlugin', 'v1beta1.DRAPlugin'] as const;
/** The health services whose NodeWatchResources this kubelet opens, newest first. */
export const draHealthServices = ['v1.DRAResourceHealth', 'v1alpha1.DRAResourceHealth'] as const;

/** A DRAPlugin service name. */
export type DraPluginService = (typeof draPluginServices)[number];
/** A DRAResourceHealth service name. */
export type DraHealthService = (typeof draHealthServices)[number];

/** The plugin-watcher type of a DRA driver's registration. */
export const DraPluginType = 'DRAPlugin';

/** Go's `%q` of a string slice. */
const goQuoteList = (list: readonly string[]): string => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;

/**
 * The services the kubelet uses from a DRA plugin's `supported_versions`: the first DRAPlugin service it
 * supports in the plugin's order, and the first health service in the plugin's order (if any); or the
 * kubelet's message when none is usable.
 */
export function chooseDraServices(
  driver: string,
  endpoint: string,
  supported: readonly string[],
): { service: DraPluginService; healthService?: DraHealthService } | { problem: string } {
  const prefix = `invalid supported gRPC versions of DRA driver plugin ${driver} at endpoint ${endpoint}`;
  if (supported.length === 0) {
    return { problem: `${prefix}: empty list of supported gRPC services (aka supported versions)` };
  }
  const service = supported.find((s): s is DraPluginService =>
    (draPluginServices as readonly string[]).includes(s),
  );
  if (service === undefined) {
    return {
      problem: `${prefix}: none of services supported by the plugin (${goQuoteList(supported)}) are supported by the kubelet (${goQuoteList(draPluginServices)})`,
    };
  }
  const healthService = supported.find((s): s is DraHealthService =>
    (draHealthServices as readonly string[]).includes(s),
  );
  return healthService === undefined ? { service } : { service, healthService };
}
