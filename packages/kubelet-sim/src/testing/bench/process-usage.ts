import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The kernel's clock ticks per second, in which `/proc/<pid>/stat` counts CPU time (`getconf CLK_TCK`, else 100). */
export function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** utime + stime of a process in clock ticks (`<procRoot>/<pid>/stat`, fields 14 and 15). */
export function cpuTicks(pid: number, procRoot = '/proc'): number {
  const stat = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses; the fields after it start behind its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`no utime/stime in ${procRoot}/${pid}/stat`);
  return ticks;
}

/** VmRSS of a process in MiB (`<procRoot>/<pid>/status`). */
export function rssMiB(pid: number, procRoot = '/proc'): number {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`${procRoot}/${pid}/status`, 'utf8'))?.[1];
  if (kib === undefined) throw new Error(`no VmRSS in ${procRoot}/${pid}/status`);
  return Number(kib) / 1024;
}
