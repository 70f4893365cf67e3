import { runPlugin } from '@kdp/core/plugin';
import { fpgaPlugin } from './plugin';

void runPlugin(fpgaPlugin);
