import { formatPluginBench } from './format-plugin-bench';
import type { PluginBenchResult } from './run-plugin-bench';

const result: PluginBenchResult = {
  title: 'fpga-device-plugin, 8 ports',
  startMs: 812.4,
  idleMs: 60_012,
  idleTicks: 21,
  ticksPerSecond: 100,
  idleCpuPercent: 0.35,
  rssMiB: 61.25,
  rounds: 50,
  latencies: [
    { kind: 'health down', count: 50, p50Ms: 310.2, p99Ms: 980.7, maxMs: 999.9, targetMs: 1000 },
    { kind: 'device added', count: 50, p50Ms: 4.26, p99Ms: 120, maxMs: 130, targetMs: 100 },
  ],
  environment: 'node v20.0.0, 2 CPUs (x)',
};

describe('formatPluginBench', () => {
  it('prints the title, idle CPU with ticks, RSS and one row per kind with its target', () => {
    expect(formatPluginBench(result)).toBe(
      [
        'fpga-device-plugin, 8 ports',
        'node v20.0.0, 2 CPUs (x); 50 rounds per change kind',
        '',
        '                    MEASURED                              TARGET',
        'start → ready       812 ms',
        'idle CPU over 60 s  0.35 % of a core (21 ticks at 100/s)  < 1 %      ok',
        'RSS after idle      61.3 MiB                              < 100 MiB  ok',
        '',
        'CHANGE → KUBELET  N   P50     P99     MAX      TARGET P99',
        'health down       50  310 ms  981 ms  1000 ms  < 1000 ms   ok',
        'device added      50  4.3 ms  120 ms  130 ms   < 100 ms    MISSED',
        '',
      ].join('\n'),
    );
  });

  it('marks idle CPU and RSS over their targets as missed', () => {
    const text = formatPluginBench({ ...result, idleCpuPercent: 29, idleTicks: 1740, rssMiB: 137 });
    expect(text).toMatch(/29\.00 % of a core \(1740 ticks at 100\/s\)\s+< 1 %\s+MISSED/);
    expect(text).toMatch(/137\.0 MiB\s+< 100 MiB\s+MISSED/);
  });
});
