import type { AnyPluginDefinition } from '@kdp/core/plugin';
import { fpgaPlugin } from '@kdp/plugin-fpga';
import { gpuPlugin } from '@kdp/plugin-gpu';
import { infinibandPlugin } from '@kdp/plugin-infiniband';
import { sriovPlugin } from '@kdp/plugin-sriov';
import { usbPlugin } from '@kdp/plugin-usb';

/**
 * The established plugins' binary names (the `command` of their manifests, linked to /app/main.js in the image)
 * and the plugin each one runs, alone, with that plugin's compat layers: `kdp-device-plugins` invoked as
 * `nvidia-device-plugin` is the GPU plugin as `gpu-device-plugin` would run it.
 */
export const anchorBinaries: Readonly<Record<string, AnyPluginDefinition>> = {
  'nvidia-device-plugin': gpuPlugin,
  'k8s-device-plugin': gpuPlugin,
  intel_gpu_device_plugin: gpuPlugin,
  sriovdp: sriovPlugin,
  'entrypoint.sh': sriovPlugin,
  'k8s-rdma-shared-dp': infinibandPlugin,
  'generic-device-plugin': usbPlugin,
  intel_fpga_device_plugin: fpgaPlugin,
};
