import { runPlugin } from '@kdp/core/plugin';
import { usbPlugin } from './plugin';

void runPlugin(usbPlugin);
