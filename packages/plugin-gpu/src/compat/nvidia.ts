import type { CompatLayer } from '@kdp/core/plugin';
import { nvidiaConfigFormat } from './nvidia-config-format';
import { nvidiaOptions as o } from './nvidia-options';

/**
 * NVIDIA/k8s-device-plugin v0.20 (`nvidia-device-plugin`, cmd/nvidia-device-plugin/main.go): every flag (with its
 * aliases) and environment variable, accepted with NVIDIA's meaning mapped onto our `nvidia`, `sharing` and `health`
 * keys and flags, or refused saying what kdp does instead; its `version: v1` configuration file is converted.
 * `--dev-root` and `--device-list-strategy` are also ours: a value valid for ours is ours. urfave/cli's own
 * `--help`, `-h` and `--version` are ours too; its `-v` (version) is left out: the ROCm and Intel layers' klog `-v N`
 * (verbosity) takes it in the same binary.
 */
export const nvidiaCompat: CompatLayer = {
  anchor: 'NVIDIA/k8s-device-plugin v0.20',
  flags: {
    'mig-strategy': o.migStrategy,
    'fail-on-init-error': o.failOnInitError,
    'driver-root': o.driverRoot,
    'nvidia-driver-root': o.driverRoot,
    'dev-root': o.devRoot,
    'nvidia-dev-root': o.devRoot,
    'pass-device-specs': o.passDeviceSpecs,
    'device-list-strategy': o.deviceListStrategy,
    'device-id-strategy': o.deviceIdStrategy,
    'gdrcopy-enabled': o.gdrcopyEnabled,
    'gds-enabled': o.gdsEnabled,
    'mofed-enabled': o.mofedEnabled,
    'cdi-annotation-prefix': o.cdiAnnotationPrefix,
    'nvidia-cdi-hook-path': o.cdiHookPath,
    'nvidia-ctk-path': o.cdiHookPath,
    'driver-root-ctr-path': o.containerDriverRoot,
    'container-driver-root': o.containerDriverRoot,
    'mps-root': o.mpsRoot,
    'shared-devices-allocation-policy': o.allocationPolicy,
    'device-discovery-strategy': o.discoveryStrategy,
    'imex-channel-ids': o.imexChannelIds,
    'imex-required': o.imexRequired,
    'kubelet-socket': o.kubeletSocket,
    'config-file': o.configFile,
    'cdi-feature-flags': o.cdiFeatureFlags,
    'cdi-disable-hooks': o.cdiDisableHooks,
  },
  env: {
    MIG_STRATEGY: o.migStrategy,
    FAIL_ON_INIT_ERROR: o.failOnInitError,
    NVIDIA_DRIVER_ROOT: o.driverRoot,
    NVIDIA_DEV_ROOT: o.devRoot,
    PASS_DEVICE_SPECS: o.passDeviceSpecs,
    DEVICE_LIST_STRATEGY: o.deviceListStrategy,
    DEVICE_ID_STRATEGY: o.deviceIdStrategy,
    GDRCOPY_ENABLED: o.gdrcopyEnabled,
    GDS_ENABLED: o.gdsEnabled,
    MOFED_ENABLED: o.mofedEnabled,
    CDI_ANNOTATION_PREFIX: o.cdiAnnotationPrefix,
    NVIDIA_CDI_HOOK_PATH: o.cdiHookPath,
    NVIDIA_CTK_PATH: o.cdiHookPath,
    DRIVER_ROOT_CTR_PATH: o.containerDriverRoot,
    CONTAINER_DRIVER_ROOT: o.containerDriverRoot,
    MPS_ROOT: o.mpsRoot,
    SHARED_DEVICES_ALLOCATION_POLICY: o.allocationPolicy,
    DEVICE_DISCOVERY_STRATEGY: o.discoveryStrategy,
    IMEX_CHANNEL_IDS: o.imexChannelIds,
    IMEX_REQUIRED: o.imexRequired,
    KUBELET_SOCKET: o.kubeletSocket,
    CONFIG_FILE: o.configFile,
    CDI_FEATURE_FLAGS: o.cdiFeatureFlags,
    CDI_DISABLE_HOOKS: o.cdiDisableHooks,
    // internal/rm/health.go reads these two directly.
    DP_DISABLE_HEALTHCHECKS: o.disableHealthChecks,
    DP_ENABLE_HEALTHCHECKS: o.enableHealthChecks,
  },
  configFormat: nvidiaConfigFormat,
};
