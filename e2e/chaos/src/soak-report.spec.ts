import { SOAK_KINDS, type SoakKind, type SoakResult } from './soak';
import { formatSoakReport } from './soak-report';

const kinds = Object.fromEntries(
  SOAK_KINDS.map((kind) => [kind, { count: 2, recoverMs: kind === 'plugin-kill' ? [1500, 2500] : [10, 30] }]),
) as Record<SoakKind, { count: number; recoverMs: number[] }>;

const passed: SoakResult = {
  seed: 7,
  requestedCycles: 14,
  cycles: 14,
  stoppedBy: 'count',
  wallMs: 75_000,
  kinds,
  variants: { 'hot-plug usb 1-4': 2, 'stream-drop': 2 },
  unplugSeenMs: [100, 300],
  lost: [],
  missed: [],
  crashes: [],
  finalExit: { code: 0, signal: null, expected: true, tail: [] },
  allocations: {
    admitted: 40,
    expected: { 'not registered (yet)': 3 },
    examples: { 'not registered (yet)': 'Allocate failed due to cannot allocate unregistered device x' },
    unexpected: [],
  },
  usage: [
    { cycle: 0, generation: 1, rssMiB: 80, fds: 39, heapMiB: 20, afterGcMiB: undefined, fullGcs: 0 },
    { cycle: 1, generation: 2, rssMiB: 70, fds: 38, heapMiB: 21, afterGcMiB: 15.04, fullGcs: 1 },
    { cycle: 2, generation: 2, rssMiB: 75, fds: 40, heapMiB: 30, afterGcMiB: 15.04, fullGcs: 1 },
    { cycle: 3, generation: 2, rssMiB: 76.25, fds: 38, heapMiB: 22, afterGcMiB: 16, fullGcs: 2 },
    { cycle: 4, generation: 2, rssMiB: 76, fds: 38, heapMiB: undefined, afterGcMiB: 16.5, fullGcs: 3 },
  ],
};

describe('formatSoakReport', () => {
  it('prints counts and recovery times per kind, the failure counts and the usage of the last process', () => {
    const report = formatSoakReport(passed);
    expect(report).toContain('kdp-device-plugins chaos soak: 14 cycles, seed 7, 1m 15s\n');
    expect(report).toMatch(/^plugin-kill +2 +1\.50 s +2\.50 s +2\.50 s$/m);
    expect(report).toMatch(/^all +14 +30 ms +2\.50 s +2\.50 s$/m);
    expect(report).toContain('variants: hot-plug usb 1-4 2, stream-drop 2\n');
    expect(report).toContain('unplug → the kubelet sees it: p50 100 ms, p99 300 ms, max 300 ms\n');
    expect(report).toMatch(/^registrations lost \(not back within the bound\) +0$/m);
    expect(report).toMatch(/^crashes \(exits nobody asked for\) +0$/m);
    expect(report).toMatch(/^allocate errors expected \(racing a fault\): not registered \(yet\) +3$/m);
    expect(report).toContain(
      'e.g. not registered (yet): Allocate failed due to cannot allocate unregistered device x\n',
    );
    expect(report).toMatch(/^allocate errors unexpected +0$/m);
    expect(report).toMatch(/^first process, registered +0 +80\.0 +20\.0 +- +0 +39$/m);
    expect(report).toMatch(/^last process \(3 cycles\), start +1 +70\.0 +21\.0 +15\.0 +1 +38$/m);
    expect(report).toMatch(/^last process, 1\/4 +2 +75\.0 +30\.0 +15\.0 +1 +40$/m);
    expect(report).toMatch(/^last process, middle +3 +76\.3 +22\.0 +16\.0 +2 +38$/m);
    expect(report).toMatch(/^last process, 3\/4 +3 +76\.3 +22\.0 +16\.0 +2 +38$/m);
    expect(report).toMatch(/^last process, end +4 +76\.0 +- +16\.5 +3 +38$/m);
    expect(report).toContain(
      'last process: RSS 70.0–76.3 MiB, fds 38–40, fewest fds per quarter -, 40, 38, 38; all 2 processes: fds 38–40\n',
    );
    expect(report).not.toMatch(/^(LOST|CRASH|MISSED|ALLOCATE) /m);
  });

  it('names every failure and why it stopped', () => {
    const report = formatSoakReport({
      ...passed,
      stoppedBy: 'failure',
      cycles: 9,
      lost: [{ cycle: 9, kind: 'stream-drop', variant: 'stream-drop', state: 'rdma/hca: NOT registered' }],
      crashes: [{ cycle: 4, generation: 1, code: null, signal: 'SIGSEGV', expected: false, tail: ['boom'] }],
      missed: ['cycle 5: hot-plug gpu: the unplug never reached the kubelet'],
      allocations: {
        admitted: 1,
        expected: {},
        examples: {},
        unexpected: [{ cycle: 6, variant: 'allocate settled', resource: 'amd.com/gpu', message: 'internal' }],
      },
    });
    expect(report).toContain(
      'stopped after cycle 9: a registration did not come back even in a fresh process',
    );
    expect(report).toMatch(/^registrations lost \(not back within the bound\) +1$/m);
    expect(report).toContain('LOST cycle 9 (stream-drop): rdma/hca: NOT registered\n');
    expect(report).toContain('CRASH cycle 4 (process 1): exit SIGSEGV\n  boom\n');
    expect(report).toContain('MISSED cycle 5: hot-plug gpu: the unplug never reached the kubelet\n');
    expect(report).toContain('ALLOCATE cycle 6 (allocate settled) amd.com/gpu: internal\n');
  });
});
