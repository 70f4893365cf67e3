import { runPlugin } from '@kdp/core/plugin';
import { infinibandPlugin } from './plugin';

void runPlugin(infinibandPlugin);
