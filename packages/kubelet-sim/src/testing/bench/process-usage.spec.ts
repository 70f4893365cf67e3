import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clockTicks, cpuTicks, rssMiB } from './process-usage';

describe('process usage', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kdp-proc-'));
    mkdirSync(join(root, '42'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('sums utime and stime behind a command name holding spaces and parentheses', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime …
    writeFileSync(
      join(root, '42', 'stat'),
      '42 (node (a) b) S 1 42 42 0 -1 4194304 10 0 0 0 123 45 7 8 20 0\n',
    );
    expect(cpuTicks(42, root)).toBe(168);
  });

  it('reads VmRSS in MiB', () => {
    writeFileSync(
      join(root, '42', 'status'),
      'Name:\tnode\nVmPeak:\t 9999 kB\nVmRSS:\t   51200 kB\nVmData:\t1 kB\n',
    );
    expect(rssMiB(42, root)).toBe(50);
  });

  it('fails on a status without VmRSS (a zombie) and a truncated stat', () => {
    writeFileSync(join(root, '42', 'status'), 'Name:\tnode\nState:\tZ (zombie)\n');
    writeFileSync(join(root, '42', 'stat'), '42 (node) Z 1\n');
    expect(() => rssMiB(42, root)).toThrow('no VmRSS');
    expect(() => cpuTicks(42, root)).toThrow('no utime/stime');
  });

  it('measures this process on the real procfs', () => {
    expect(cpuTicks(process.pid)).toBeGreaterThan(0);
    expect(rssMiB(process.pid)).toBeGreaterThan(10);
    expect(Number.isInteger(clockTicks()) && clockTicks() > 0).toBe(true);
  });
});
