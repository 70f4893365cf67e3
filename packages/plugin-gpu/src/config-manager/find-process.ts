import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/**
 * The first process under `procRoot` (a shared process namespace's /proc) whose command is `name`: its argv[0] is
 * `name` (as NVIDIA's config-manager matches), or it is an interpreter (`node`) running a script whose file name is
 * `name` (a `#!` entry such as kdp's /usr/bin/nvidia-device-plugin, whose argv[0] the kernel makes the
 * interpreter). `selfPid` is never chosen. Resolves undefined when none matches.
 */
export async function findProcess(
  procRoot: string,
  name: string,
  selfPid: number,
): Promise<number | undefined> {
  const pids = (await readdir(procRoot))
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => pid !== selfPid)
    .sort((a, b) => a - b);
  for (const pid of pids) {
    const cmdline = await readFile(join(procRoot, String(pid), 'cmdline'), 'utf8').catch(() => '');
    const [first = '', second = ''] = cmdline.split('\0');
    if (first === name) return pid;
    if (basename(first) === 'node' && second !== '' && basename(second) === name) return pid;
  }
  return undefined;
}
