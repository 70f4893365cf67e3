import { runPlugin } from '@kdp/core/plugin';
import { createDraServeMode } from '@kdp/dra';
import { infinibandPlugin } from './plugin';

// `serve --mode dra` serves the same devices through Dynamic Resource Allocation.
void runPlugin(infinibandPlugin, {}, { modes: { dra: createDraServeMode() } });
