import { runPlugins } from '@kdp/core/plugin';
import { createDraServeMode } from '@kdp/dra';
import { devicePlugins } from './program';

// `serve --mode dra` serves every chosen plugin as its own DRA driver (<plugin>.kdp.dev).
void runPlugins(devicePlugins, {}, { modes: { dra: createDraServeMode() } });
