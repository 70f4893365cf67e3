// The entry of the DRA prepare bench's driver process (usb-like-plugin.ts); prepare-bench.ts bundles and spawns
// it with `serve --mode dra` and its flags. Its first import, as in every plugin's main.ts, holds V8's TurboFan
// off until its drivers serve.
import '@kdp/core/start';
import { runPlugin } from '@kdp/core/plugin';
import { createDraServeMode } from '../src/dra-serve-mode';
import { usbLikePlugin } from './usb-like-plugin';

void runPlugin(usbLikePlugin, {}, { modes: { dra: createDraServeMode() } });
