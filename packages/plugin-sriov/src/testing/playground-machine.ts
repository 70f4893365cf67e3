import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlaygroundMachine } from '@kdp/dra/testing';
import { createSysfsFixture } from '@kdp/topology/testing';
import { addTwoPfNode, UPSTREAM_CONFIG } from './sriov-node';

/**
 * The two-PF fixture node for the DRA playground: the plugin's roots on it, the upstream-format configuration and a
 * device-info directory in `dir`, a 1 h poll interval, and `extraFlags` (`--dra-device-metadata`).
 */
export function twoPfPlaygroundMachine(dir: string, extraFlags: readonly string[] = []): PlaygroundMachine {
  const fx = createSysfsFixture();
  addTwoPfNode(fx);
  const config = join(dir, 'config.json');
  writeFileSync(config, UPSTREAM_CONFIG);
  return {
    flags: [
      ...['--sysfs-root', fx.root, '--proc-root', fx.procRoot, '--dev-root', fx.devRoot],
      ...['--poll-interval', '1h', '--config', config, '--devinfo-dir', join(dir, 'devinfo')],
      ...extraFlags,
    ],
    devRoot: fx.devRoot,
    procRoot: fx.procRoot,
    remove: () => fx.remove(),
  };
}
