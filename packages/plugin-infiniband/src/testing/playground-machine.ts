import type { PlaygroundMachine } from '@kdp/dra/testing';
import { createRdmaMachine } from './rdma-machine';

/** The RDMA fixture machine for the DRA playground: the plugin's roots on it, a 1 h poll interval, `extraFlags`. */
export function rdmaPlaygroundMachine(extraFlags: readonly string[] = []): PlaygroundMachine {
  const fx = createRdmaMachine();
  return {
    flags: ['--sysfs-root', fx.root, '--dev-root', fx.devRoot, '--poll-interval', '1h', ...extraFlags],
    devRoot: fx.devRoot,
    remove: () => fx.remove(),
  };
}
