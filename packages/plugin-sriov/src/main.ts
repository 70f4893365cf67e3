// First: holds V8's TurboFan off until the first call the plugin serves (@kdp/core's optimizing-compilers.ts).
import '@kdp/core/start';
import { anchorInvocation, runPlugin } from '@kdp/core/plugin';
import { createDraServeMode } from '@kdp/dra';
import { sriovPlugin } from './plugin';

// Invoked by the anchor's binary name (a link in the image) with no arguments: serve.
// `serve --mode dra` serves the same devices through Dynamic Resource Allocation.
void runPlugin(sriovPlugin, anchorInvocation(['sriovdp', 'entrypoint.sh']), {
  modes: { dra: createDraServeMode() },
});
