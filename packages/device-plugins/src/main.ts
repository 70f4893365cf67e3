import { runPlugins } from '@kdp/core/plugin';
import { devicePlugins } from './program';

void runPlugins(devicePlugins);
