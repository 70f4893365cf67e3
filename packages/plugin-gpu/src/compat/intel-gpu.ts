import { posix } from 'node:path';
import { compat, klogFlags, parseGoInt, type CompatLayer, type CompatOption } from '@kdp/core/plugin';

/** The resources Intel's plugin names after the kernel driver (our `resourceNames.i915` and `.xe` defaults). */
export const INTEL_GPU_RESOURCES = ['gpu.intel.com/i915', 'gpu.intel.com/xe'] as const;

/** Our `sharing.replicas` limit, which `-shared-dev-num` must respect. */
const MAX_SHARED_DEV_NUM = 64;

/** A boolean accepted as false (Intel's default, what kdp does); true is refused with `refusal`. */
const onlyFalse = (refusal: string): CompatOption => compat.onlyFalse('Intel', refusal);

/** A value checked as Intel checks it, with no effect here because the option it tunes is refused. */
const tunesRefused = (description: string, check: (value: string) => void): CompatOption =>
  compat.accept('value', description, (value) => check(value));

const temperature = (value: string): void => {
  parseGoInt(value);
};

/** `-allow-ids` and `-deny-ids`: only empty (Intel's default). */
const noIdFilter = compat.accept('value', 'the empty list only (every Intel GPU is advertised)', (value) => {
  if (value !== '')
    throw new Error(
      `${JSON.stringify(value)} is not supported: kdp advertises every Intel GPU bound to i915 or xe; keep a GPU out by binding it to another driver (vfio-pci), or schedule by model with modelResourceNames`,
    );
});

/**
 * intel/intel-device-plugins-for-kubernetes v0.36 `intel-gpu-plugin` (cmd/gpu_plugin): its flags and klog's,
 * accepted with Intel's meaning or refused saying what kdp does instead. It reads no configuration file and no
 * environment variable (its DaemonSet's NODE_NAME and HOST_IP are unused). Resource names (`gpu.intel.com/i915`,
 * `gpu.intel.com/xe`), device nodes (`/dev/dri/cardN`, `renderDN`, rw) and the read-only
 * `/dev/dri/by-path/pci-<address>-*` mounts are ours by default; device IDs are PCI addresses (`<address>::<n>`
 * for replicas) where Intel has `cardN-<n>`.
 */
export const intelGpuCompat: CompatLayer = {
  anchor: 'intel/intel-device-plugins-for-kubernetes v0.36 (gpu_plugin)',
  flags: {
    prefix: compat.accept(
      'value',
      'root of sysfs and devfs: --sysfs-root PREFIX/sys, --dev-root PREFIX/dev',
      (value, to) => {
        if (value === '') return;
        if (!posix.isAbsolute(value) || value.includes('\0'))
          throw new Error(`${JSON.stringify(value)} is not an absolute path`);
        to.flag('sysfs-root', posix.join(value, 'sys'));
        to.flag('dev-root', posix.join(value, 'dev'));
      },
    ),
    'shared-dev-num': compat.accept(
      'value',
      `containers sharing one Intel GPU: sharing.resources replicas for ${INTEL_GPU_RESOURCES.join(' and ')} (replaces the file's entries)`,
      (value, to) => {
        const replicas = parseGoInt(value);
        if (replicas < 1)
          throw new Error('the number of containers sharing the same GPU must be greater than zero');
        if (replicas > MAX_SHARED_DEV_NUM)
          throw new Error(`${replicas} is more than kdp shares one GPU (${MAX_SHARED_DEV_NUM})`);
        // Named after themselves, so that a renameByDefault in the file does not add `.shared` (Intel never renames).
        to.setConfig(
          ['sharing', 'resources'],
          INTEL_GPU_RESOURCES.map((name) => ({ name, replicas, rename: name })),
        );
      },
    ),
    'allocation-policy': compat.accept(
      'value',
      'none or balanced: replicas are spread over the GPUs of one NUMA node (GetPreferredAllocation); packed is refused',
      (value) => {
        if (value === 'none' || value === 'balanced') return;
        if (value === 'packed')
          throw new Error(
            'packed is not supported: kdp spreads shared replicas over the GPUs of a NUMA node, taking each from the GPU with the fewest taken (as balanced)',
          );
        throw new Error(`${JSON.stringify(value)} is not one of balanced, packed, none`);
      },
    ),
    bypath: compat.accept(
      'value',
      "single only: each GPU's own /dev/dri/by-path/pci-<address>-card and -render links, mounted read-only",
      (value) => {
        if (value === 'single') return;
        if (value === 'none' || value === 'all')
          throw new Error(
            `${value} is not supported: kdp always mounts each allocated GPU's own by-path links read-only (single)`,
          );
        throw new Error(`${JSON.stringify(value)} is not one of single, none, all`);
      },
    ),
    'enable-monitoring': compat.accept(
      'boolean',
      'also serve the monitoring resource: one device, all, holding every Intel GPU with its MEI nodes (intel.monitoring)',
      (value, to) => to.setConfig(['intel', 'monitoring'], value === 'true'),
    ),
    'monitoring-mode': compat.accept(
      'value',
      'single (gpu.intel.com/monitoring) or split (gpu.intel.com/i915_monitoring, …/xe_monitoring): the monitoring resource of -enable-monitoring (intel.monitoringMode)',
      (value, to) => {
        if (value !== 'single' && value !== 'split')
          throw new Error(`${JSON.stringify(value)} is not one of split, single`);
        to.setConfig(['intel', 'monitoringMode'], value);
      },
    ),
    'health-management': onlyFalse(
      'kdp does not query the Level-Zero sidecar; a GPU is Unhealthy when its PCI function, driver binding or device nodes go missing',
    ),
    'xpumd-endpoint': compat.accept('value', 'the empty path only (no xpumd health source)', (value) => {
      if (value !== '')
        throw new Error(
          `${JSON.stringify(value)} is not supported: kdp does not query xpumd; a GPU is Unhealthy when its PCI function, driver binding or device nodes go missing`,
        );
    }),
    'temp-limit': tunesRefused('an integer: used only with -health-management (refused)', temperature),
    'gpu-temp-limit': tunesRefused('an integer: used only with -health-management (refused)', temperature),
    'memory-temp-limit': tunesRefused('an integer: used only with -health-management (refused)', temperature),
    wsl: onlyFalse('kdp does not serve WSL GPUs (/dev/dxg)'),
    'allow-ids': noIdFilter,
    'deny-ids': noIdFilter,
    ...klogFlags,
  },
};
