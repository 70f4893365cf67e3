import { runPlugin } from '@kdp/core/plugin';
import { sriovPlugin } from './plugin';

void runPlugin(sriovPlugin);
