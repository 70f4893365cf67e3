import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Writes a device-node stand-in for the host path `/dev/...` under `devRoot`: a regular file holding
 * `c MAJOR:MINOR`, what `kdp-replay.sh` writes for a captured machine and every plugin accepts (the GPU plugin
 * requires exactly this form; the others only check that the node exists).
 */
export function writeDevNode(devRoot: string, hostPath: string, major: number, minor: number): void {
  const path = devNodePath(devRoot, hostPath);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `c ${major}:${minor}\n`);
}

/** Removes a device-node stand-in (the device "falls off"); nothing happens when it is already gone. */
export function removeDevNode(devRoot: string, hostPath: string): void {
  rmSync(devNodePath(devRoot, hostPath), { force: true });
}

/** Where the host path `/dev/...` lies under `devRoot`. */
export function devNodePath(devRoot: string, hostPath: string): string {
  return join(devRoot, hostPath.replace(/^\/dev\//, ''));
}
