import { runPlugin } from '@kdp/core/plugin';
import { gpuPlugin } from './plugin';

void runPlugin(gpuPlugin);
