// First: holds V8's TurboFan off until the first call the plugin serves (@kdp/core's optimizing-compilers.ts).
import '@kdp/core/start';
import { basename } from 'node:path';
import { anchorInvocation, runPlugin, runPlugins } from '@kdp/core/plugin';
import { createDraServeMode } from '@kdp/dra';
import { runConfigManager } from '@kdp/plugin-gpu';
import { anchorBinaries } from './anchor-binaries';
import { devicePlugins } from './program';

// Invoked by an established plugin's binary name (a link in the image): that one plugin with its compat layers;
// as `config-manager`: NVIDIA's config-manager contract; otherwise all plugins in one process.
const invoked = basename(process.argv[1] ?? '');
const anchor = Object.hasOwn(anchorBinaries, invoked) ? anchorBinaries[invoked] : undefined;
// `serve --mode dra` serves every chosen plugin as its own DRA driver (<plugin>.kdp.dev).
const modes = { modes: { dra: createDraServeMode() } };
if (invoked === 'config-manager') void runConfigManager();
// An anchor's name with no arguments (NVIDIA's chart: `command: ["nvidia-device-plugin"]`, env only) serves.
else if (anchor !== undefined) void runPlugin(anchor, anchorInvocation([invoked]), modes);
else void runPlugins(devicePlugins, {}, modes);
