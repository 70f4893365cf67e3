import { runPlugin } from '@kdp/core/plugin';
import { createDraServeMode } from '@kdp/dra';
import { gpuPlugin } from './plugin';

// `serve --mode dra` serves the same devices through Dynamic Resource Allocation.
void runPlugin(gpuPlugin, {}, { modes: { dra: createDraServeMode() } });
