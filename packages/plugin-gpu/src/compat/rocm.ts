import { compat, klogFlags, parseGoInt, type CompatLayer, type CompatOption } from '@kdp/core/plugin';

/** golang/glog v1.2's flags (ROCm's plugin logs through glog): klog's where they match, glog's own two refused. */
const glogFlags: Readonly<Record<string, CompatOption>> = {
  ...Object.fromEntries(
    ['v', 'vmodule', 'log_backtrace_at', 'logtostderr', 'alsologtostderr', 'stderrthreshold', 'log_dir'].map(
      (name) => [name, klogFlags[name] as CompatOption],
    ),
  ),
  log_link: compat.refuse(
    'value',
    'kdp appends its JSON logs to one file, -log_dir DIR/<binary>.log, and makes no symbolic links',
  ),
  logbuflevel: compat.refuse('value', 'kdp writes every log line at once, unbuffered, whatever its level'),
};

/** `-pulse N`: ROCm's health polling period in seconds (0, its default, turns health checks off). */
const pulse: CompatOption = compat.accept(
  'value',
  'seconds between health checks: the change probe runs every N s (--poll-interval Ns)',
  (value, to) => {
    const seconds = parseGoInt(value);
    if (seconds < 0) throw new Error(`${value} is not a number of seconds (0 or more)`);
    if (seconds === 0)
      throw new Error(
        '0 turns ROCm’s health checks off, and kdp’s cannot be (device nodes are watched, sysfs probed every --poll-interval): leave -pulse out, or give the seconds between checks',
      );
    to.flag('poll-interval', `${seconds}s`);
  },
);

/** `-resource_naming_strategy single|mixed` → `amd.resourceNamingStrategy`. */
const resourceNamingStrategy: CompatOption = compat.accept(
  'value',
  'single: every GPU and partition as amd.com/gpu; mixed: one resource per partition mode, amd.com/<compute>_<memory> (amd.resourceNamingStrategy)',
  (value, to) => {
    if (value !== 'single' && value !== 'mixed')
      throw new Error(`${JSON.stringify(value)} is not single or mixed`);
    to.setConfig(['amd', 'resourceNamingStrategy'], value);
  },
);

/** `-driver_type` (ROCm's gpu-virtualization branch): `container` is what kdp does; the passthrough types are not. */
const driverType: CompatOption = compat.accept(
  'value',
  'container: GPUs bound to amdgpu, handed to containers (what kdp does); the passthrough types are refused',
  (value) => {
    if (value === '' || value === 'container') return;
    if (value === 'vf-passthrough' || value === 'pf-passthrough')
      throw new Error(
        `${value} is not supported: gpu-device-plugin advertises GPUs bound to amdgpu for containers; for VM passthrough advertise the vfio-pci functions with sriov-device-plugin (deviceType accelerator, drivers [vfio-pci])`,
      );
    throw new Error(`${JSON.stringify(value)} is not container, vf-passthrough or pf-passthrough`);
  },
);

/**
 * A variable ROCm's documentation lists and its plugin never reads: accepted with no effect, as upstream's pods
 * start with it set; the start-up log says so (`anchor option applied … nothing to change: no effect …`).
 */
const documentedOnly = (what: string): CompatOption =>
  compat.accept(
    'value',
    `no effect: ROCm documents ${what} but its plugin (v1.31.0.10) never reads it, so it changes nothing there either`,
    () => undefined,
  );

/**
 * ROCm/k8s-device-plugin v1.31.0.10 (`k8s-device-plugin`, cmd/k8s-device-plugin/main.go): `-pulse` (health period,
 * as our `--poll-interval`), `-resource_naming_strategy` (`amd.resourceNamingStrategy`), `-driver_type` from its
 * gpu-virtualization branch, and golang/glog's flags; the variables its documentation lists but its code never reads
 * are accepted with no effect, logged. It has no configuration file and no default path.
 */
export const rocmCompat: CompatLayer = {
  anchor: 'ROCm/k8s-device-plugin v1.31.0.10',
  flags: {
    pulse,
    resource_naming_strategy: resourceNamingStrategy,
    driver_type: driverType,
    ...glogFlags,
  },
  env: {
    AMD_GPU_DEVICE_COUNT: documentedOnly('AMD_GPU_DEVICE_COUNT (a limit on the GPUs advertised)'),
    CONFIG_FILE_PATH: documentedOnly('CONFIG_FILE_PATH (a YAML file with gpu.device_count)'),
  },
};
