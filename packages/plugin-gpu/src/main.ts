import { basename } from 'node:path';
import { runPlugin } from '@kdp/core/plugin';
import { createDraServeMode } from '@kdp/dra';
import { runConfigManager } from './config-manager/run-config-manager';
import { gpuPlugin } from './plugin';

// Invoked as `config-manager` (the image's link, NVIDIA's chart's init container and sidecar): NVIDIA's
// config-manager contract. Every other name (gpu-device-plugin, nvidia-device-plugin, …) runs the plugin.
if (basename(process.argv[1] ?? '') === 'config-manager') void runConfigManager();
// `serve --mode dra` serves the same devices through Dynamic Resource Allocation.
else void runPlugin(gpuPlugin, {}, { modes: { dra: createDraServeMode() } });
