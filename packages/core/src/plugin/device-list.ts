import type { ContainerAllocation, PluginDevice } from '../plugin-device';
import type { DeviceListStrategy, ResourceSpec } from './define-plugin';

/** The strategies a resource is handed over with: `--device-list-strategy` when given, else its own default. */
export function strategiesOf(
  spec: Pick<ResourceSpec<unknown>, 'deviceListStrategy'>,
  flag: readonly DeviceListStrategy[] | undefined,
): ReadonlySet<DeviceListStrategy> {
  const chosen = flag ?? spec.deviceListStrategy ?? ['device-specs'];
  return new Set(chosen.length > 0 ? chosen : ['device-specs']);
}

/**
 * One container's answer under a resource's strategies, from what its `allocate` hook returned: environment
 * and annotations always; device nodes and mounts with `device-specs` (or with `envvar` on a resource that has
 * no device-list variable and no `cdi`); the device-list variable with `envvar`; `cdiNames` with `cdi`, also
 * under the resource's CDI annotation key when it has one.
 */
export function handOver<P>(
  spec: Pick<ResourceSpec<P>, 'deviceListEnv' | 'cdi'>,
  devices: readonly PluginDevice<P>[],
  allocation: ContainerAllocation,
  strategies: ReadonlySet<DeviceListStrategy>,
  cdiNames?: () => readonly string[],
): ContainerAllocation {
  const listEnv = strategies.has('envvar') ? spec.deviceListEnv?.(devices) : undefined;
  const specs =
    strategies.has('device-specs') ||
    (strategies.has('envvar') && spec.deviceListEnv === undefined && !strategies.has('cdi'));
  const cdi = strategies.has('cdi') && cdiNames !== undefined ? cdiNames() : [];
  const cdiDevices = [...new Set([...(allocation.cdiDevices ?? []), ...cdi])];
  return {
    envs: { ...allocation.envs, ...listEnv },
    annotations: {
      ...allocation.annotations,
      ...(spec.cdi?.annotation !== undefined && cdiDevices.length > 0
        ? { [spec.cdi.annotation]: cdiDevices.join(',') }
        : {}),
    },
    mounts: specs ? [...(allocation.mounts ?? [])] : [],
    devices: specs ? [...(allocation.devices ?? [])] : [],
    cdiDevices,
  };
}
