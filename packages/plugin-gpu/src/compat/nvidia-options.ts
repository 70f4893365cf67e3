import { statSync } from 'node:fs';
import { posix } from 'node:path';
import { compat, type CompatOption, type CompatTarget } from '@kdp/core/plugin';

/** NVIDIA's Xids that never mark a GPU unhealthy (internal/rm/health.go), also our `health.ignoredXids` default. */
const NVIDIA_IGNORED_XIDS = [13, 31, 43, 45, 68, 109];

/** A value accepted only as one of `values` (what we do anyway); any other is refused with `refusal`. */
const onlyValues = (values: readonly string[], description: string, refusal: string): CompatOption =>
  compat.accept('value', description, (value) => {
    if (!values.includes(value)) throw new Error(`${JSON.stringify(value)} is not supported: ${refusal}`);
  });

/** A boolean accepted only as false (NVIDIA's default, what we do); true is refused with `refusal`. */
const onlyFalse = (refusal: string): CompatOption => compat.onlyFalse('NVIDIA', refusal);

/** A comma-separated list (urfave/cli's StringSlice), trimmed, empty entries dropped. */
const list = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

const oneOf = <T extends string>(value: string, values: readonly T[]): T => {
  if (!(values as readonly string[]).includes(value))
    throw new Error(`${JSON.stringify(value)} is not one of ${values.join(', ')}`);
  return value as T;
};

/** NVIDIA's device list strategies as ours: `envvar` → `envvar`, `cdi-cri` → `cdi`; the others refused. */
export function nvidiaDeviceListStrategies(value: string): ('envvar' | 'cdi')[] {
  const strategies = list(value);
  if (strategies.length === 0) throw new Error('names no strategy (envvar, cdi-cri)');
  const ours = strategies.map((strategy) => {
    switch (strategy) {
      case 'envvar':
        return 'envvar' as const;
      case 'cdi-cri':
        return 'cdi' as const;
      case 'volume-mounts':
        throw new Error(
          'volume-mounts is not supported: kdp passes NVIDIA_VISIBLE_DEVICES (envvar) or CDI device names in the CRI CDIDevices field (cdi-cri)',
        );
      case 'cdi-annotations':
        throw new Error(
          'cdi-annotations is not supported: kdp passes CDI device names in the CRI CDIDevices field (cdi-cri; containerd 1.7+, CRI-O 1.23+)',
        );
      default:
        throw new Error(
          `${JSON.stringify(strategy)} is not one of envvar, volume-mounts, cdi-annotations, cdi-cri`,
        );
    }
  });
  return [...new Set(ours)];
}

/** Where NVIDIA's helm chart mounts the driver root in the plugin's container. */
const DEFAULT_CONTAINER_DRIVER_ROOT = '/driver-root';

/** An absolute path, normalised; throws for anything else. */
function absolute(value: string): string {
  if (!posix.isAbsolute(value) || value.includes('\0'))
    throw new Error(`${JSON.stringify(value)} is not an absolute path`);
  return posix.normalize(value);
}

/**
 * `--dev-root <root>/dev` where that directory exists in this container, as NVIDIA's plugin finds device nodes
 * under the mounted driver root (its `getDevRoot`); an explicit `--dev-root` still wins.
 */
function followDevRoot(containerRoot: string, to: CompatTarget): void {
  const dev = posix.join(containerRoot, 'dev');
  if (statSync(dev, { throwIfNoEntry: false })?.isDirectory() === true) to.flag('dev-root', dev);
}

const NO_HOOKS =
  "kdp's CDI specs name device nodes only, with no OCI hooks; driver files come from the NVIDIA runtime";

/**
 * NVIDIA k8s-device-plugin's settings (each a flag, an environment variable and mostly a key of its config file),
 * with their meaning here. Shared by the flags, the variables and the config-file conversion.
 */
export const nvidiaOptions = {
  migStrategy: compat.accept(
    'value',
    'none, single or mixed: how MIG devices are advertised (nvidia.migStrategy)',
    (value, to) => to.setConfig(['nvidia', 'migStrategy'], oneOf(value, ['none', 'single', 'mixed'])),
  ),
  failOnInitError: compat.accept(
    'boolean',
    'either value: kdp has no start-up step that fails on a node without usable GPUs (it advertises none, says why under `excluded` and rescans); a bad configuration exits 2 either way',
    () => undefined,
  ),
  driverRoot: compat.accept(
    'value',
    `the driver's root on the host, / or a driver container's (/run/nvidia/driver): device nodes handed over as <root>/dev/… (nvidia.driverRoot), looked up under ${DEFAULT_CONTAINER_DRIVER_ROOT}/dev where it exists (--dev-root, unless given)`,
    (value, to) => {
      const root = absolute(value);
      to.setConfig(['nvidia', 'driverRoot'], root);
      if (root !== '/') followDevRoot(DEFAULT_CONTAINER_DRIVER_ROOT, to);
    },
  ),
  devRoot: compat.accept(
    'value',
    "the device nodes' root on the host (default: the driver root): /dev/nvidia0 handed over as <root>/dev/nvidia0 (nvidia.devRoot)",
    (value, to) => {
      if (value !== '') to.setConfig(['nvidia', 'devRoot'], absolute(value));
    },
  ),
  passDeviceSpecs: compat.accept(
    'boolean',
    'also pass the device nodes as DeviceSpecs (nvidia.passDeviceSpecs)',
    (value, to) => to.setConfig(['nvidia', 'passDeviceSpecs'], value === 'true'),
  ),
  deviceListStrategy: compat.accept(
    'value',
    'envvar (NVIDIA_VISIBLE_DEVICES) and/or cdi-cri (CDI names in the CRI CDIDevices field): nvidia.deviceListStrategy envvar/cdi; volume-mounts and cdi-annotations are refused',
    (value, to) => to.setConfig(['nvidia', 'deviceListStrategy'], nvidiaDeviceListStrategies(value)),
  ),
  deviceIdStrategy: compat.accept(
    'value',
    'uuid or index: how NVIDIA_VISIBLE_DEVICES and CDI names name GPUs (nvidia.deviceIDStrategy)',
    (value, to) => to.setConfig(['nvidia', 'deviceIDStrategy'], oneOf(value, ['uuid', 'index'])),
  ),
  gdrcopyEnabled: onlyFalse('kdp does not set NVIDIA_GDRCOPY=enabled; set it in the pod spec'),
  gdsEnabled: onlyFalse('kdp does not set NVIDIA_GDS=enabled; set it in the pod spec'),
  mofedEnabled: onlyFalse('kdp does not set NVIDIA_MOFED=enabled; set it in the pod spec'),
  cdiAnnotationPrefix: onlyValues(
    ['cdi.k8s.io/'],
    "cdi.k8s.io/ only (NVIDIA's default)",
    'kdp writes no CDI annotations (cdi-annotations is refused); CDI names go in the CRI CDIDevices field',
  ),
  cdiHookPath: onlyValues(['/usr/bin/nvidia-ctk'], "/usr/bin/nvidia-ctk only (NVIDIA's default)", NO_HOOKS),
  containerDriverRoot: compat.accept(
    'value',
    `where the driver root is mounted here (default ${DEFAULT_CONTAINER_DRIVER_ROOT}): libnvidia-ml.so.1 looked for under it, device nodes under its dev/ where that exists (--dev-root, unless given) (nvidia.containerDriverRoot)`,
    (value, to) => {
      const root = absolute(value);
      to.setConfig(['nvidia', 'containerDriverRoot'], root);
      followDevRoot(root, to);
    },
  ),
  mpsRoot: compat.accept(
    'value',
    "accepted (NVIDIA's chart always sets it), used only by MPS sharing as in NVIDIA's plugin; sharing.mps itself is refused: NVIDIA's MPS needs its mps-control-daemon DaemonSet, checked by running the driver's nvidia-cuda-mps-control, which kdp does not run",
    (value) => {
      if (value !== '' && !posix.isAbsolute(value))
        throw new Error(`${JSON.stringify(value)} is not an absolute path`);
    },
  ),
  allocationPolicy: onlyValues(
    ['distributed'],
    'distributed only: replicas are spread over the GPUs with the fewest taken (GetPreferredAllocation)',
    'kdp spreads shared replicas over GPUs (distributed); packed is not implemented',
  ),
  discoveryStrategy: onlyValues(
    ['auto', 'nvml'],
    'auto or nvml: the discrete GPUs NVML sees, read from sysfs and /proc/driver/nvidia',
    'kdp does not discover Tegra (Jetson, IGX) integrated GPUs',
  ),
  imexChannelIds: compat.accept('value', 'the empty list only (no IMEX channels)', (value) => {
    if (list(value).length > 0)
      throw new Error(`${JSON.stringify(value)} is not supported: kdp does not inject IMEX channels`);
  }),
  imexRequired: compat.accept(
    'boolean',
    'accepted: only meaningful with IMEX channel IDs, which are refused',
    () => undefined,
  ),
  kubeletSocket: compat.accept(
    'value',
    "the kubelet's socket <dir>/kubelet.sock: kdp registers there and serves its sockets in <dir> (--device-plugin-dir)",
    (value, to) => {
      if (value === '')
        throw new Error('an empty socket (no registration) is not supported: run `discover` instead');
      if (!posix.isAbsolute(value) || posix.basename(value) !== 'kubelet.sock')
        throw new Error(
          `${JSON.stringify(value)} is not supported: kdp registers on <--device-plugin-dir>/kubelet.sock`,
        );
      to.flag('device-plugin-dir', posix.dirname(value));
    },
  ),
  configFile: compat.toFlag('config', "the configuration file, NVIDIA's format or ours (--config)", {
    names: 'a file',
  }),
  cdiFeatureFlags: compat.accept(
    'value',
    'the empty list only (kdp writes its own CDI specs, without nvidia-ctk)',
    (value) => {
      if (list(value).length > 0) throw new Error(`${JSON.stringify(value)} is not supported: ${NO_HOOKS}`);
    },
  ),
  cdiDisableHooks: compat.accept(
    'value',
    "any list: kdp's CDI specs contain no OCI hooks, so every hook is already left out",
    () => undefined,
  ),
  disableHealthChecks: compat.accept(
    'value',
    "all or xids: no NVML Xid health (health.nvml off); Xid numbers: ignored besides NVIDIA's list (health.ignoredXids)",
    (value, to) => {
      const items = list(value.toLowerCase());
      if (items.includes('all') || items.includes('xids')) {
        to.setConfig(['health', 'nvml'], 'off');
        return;
      }
      const xids = items.map((item) => {
        if (!/^\d{1,10}$/.test(item))
          throw new Error(`${JSON.stringify(item)} is not an Xid number, all or xids`);
        return Number(item);
      });
      to.setConfig(['health', 'ignoredXids'], [...new Set([...NVIDIA_IGNORED_XIDS, ...xids])]);
    },
  ),
  enableHealthChecks: compat.refuse(
    'value',
    `set health.ignoredXids in the configuration instead (NVIDIA's list is ${NVIDIA_IGNORED_XIDS.join(', ')}; leave out the Xids to act on)`,
  ),
} satisfies Record<string, CompatOption>;
