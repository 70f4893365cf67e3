// First: holds V8's TurboFan off until the first call the plugin serves (@kdp/core's optimizing-compilers.ts).
import '@kdp/core/start';
import { basename } from 'node:path';
import { anchorInvocation, runPlugin } from '@kdp/core/plugin';
import { createDraServeMode } from '@kdp/dra';
import { runConfigManager } from './config-manager/run-config-manager';
import { gpuPlugin } from './plugin';

// Invoked as `config-manager` (the image's link, NVIDIA's chart's init container and sidecar): NVIDIA's
// config-manager contract. Every other name (gpu-device-plugin, nvidia-device-plugin, …) runs the plugin.
const invoked = basename(process.argv[1] ?? '');
// An anchor's name with no arguments (NVIDIA's chart: `command: ["nvidia-device-plugin"]`, env only) serves.
const io = anchorInvocation(['nvidia-device-plugin', 'k8s-device-plugin', 'intel_gpu_device_plugin']);
if (invoked === 'config-manager') void runConfigManager();
// `serve --mode dra` serves the same devices through Dynamic Resource Allocation.
else void runPlugin(gpuPlugin, io, { modes: { dra: createDraServeMode() } });
