import { createSysfs, type Sysfs } from '../sysfs/create-sysfs';
import { createDevfs, type Devfs } from './create-devfs';

/** The roots a plugin reads the machine through (`--sysfs-root`, `--dev-root`, `--proc-root`). */
export interface HostRoots {
  /** Default `/sys`. */
  readonly sysfsRoot?: string;
  /** Default `/dev`. */
  readonly devRoot?: string;
  /** Default `/proc`. */
  readonly procRoot?: string;
}

/**
 * Everything a plugin may read of the machine, each part confined to its root: symbolic links that leave a
 * root are refused, so a scan reads a fixture tree, a replayed capture or the real host the same way.
 */
export interface Host {
  /** sysfs (`/sys`). */
  readonly sysfs: Sysfs;
  /** Device nodes (`/dev`). */
  readonly devfs: Devfs;
  /** procfs (`/proc`), read through the same confined reader as sysfs. */
  readonly procfs: Sysfs;
}

/** Builds the confined readers for a set of roots. */
export function createHost(roots: HostRoots = {}): Host {
  return {
    sysfs: createSysfs({ root: roots.sysfsRoot ?? '/sys' }),
    devfs: createDevfs(roots.devRoot ?? '/dev'),
    procfs: createSysfs({ root: roots.procRoot ?? '/proc' }),
  };
}
