import type { PluginBenchResult, PluginBenchScenario } from './run-plugin-bench';
import { runPluginBenchCli } from './run-plugin-bench-cli';

const scenario: PluginBenchScenario = {
  title: 'fake plugin',
  bundle: '/nonexistent/main.js',
  args: () => [],
  ready: () => true,
  cycles: [],
};
const result: PluginBenchResult = {
  title: 'fake plugin',
  startMs: 1,
  idleMs: 5000,
  idleTicks: 0,
  ticksPerSecond: 100,
  idleCpuPercent: 0,
  rssMiB: 40,
  rounds: 5,
  latencies: [],
  environment: 'test',
};

describe('runPluginBenchCli', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    let cleanups = 0;
    return {
      out,
      err,
      cleanups: () => cleanups,
      options: {
        stdout: (t: string) => out.push(t),
        stderr: (t: string) => err.push(t),
        cleanup: () => void cleanups++,
      },
    };
  };

  it('runs with the parsed flags, prints the table and cleans up', async () => {
    const o = io();
    const calls: unknown[] = [];
    const code = await runPluginBenchCli(scenario, {
      ...o.options,
      argv: ['--idle', '5s', '--rounds', '5'],
      run: async (s, args) => {
        calls.push([s.title, args.idleMs, args.rounds]);
        args.progress('idle …');
        return result;
      },
    });
    expect(code).toBe(0);
    expect(calls).toEqual([['fake plugin', 5000, 5]]);
    expect(o.out.join('')).toContain('fake plugin\ntest; 5 rounds per change kind');
    expect(o.err).toEqual(['bench: idle …\n']);
    expect(o.cleanups()).toBe(1);
  });

  it('exits 2 with the usage on a bad flag, without running', async () => {
    const o = io();
    const run = jest.fn();
    expect(await runPluginBenchCli(scenario, { ...o.options, argv: ['--fast'], run })).toBe(2);
    expect(run).not.toHaveBeenCalled();
    expect(o.err.join('')).toMatch(/^bench: unknown argument "--fast"\nUsage: bench/);
    expect(o.cleanups()).toBe(1);
  });

  it('exits 1 with the error when the bench fails, and still cleans up', async () => {
    const o = io();
    const code = await runPluginBenchCli(scenario, {
      ...o.options,
      argv: [],
      run: () => Promise.reject(new Error('not ready within 120 s (log: /tmp/x/plugin.log)')),
    });
    expect(code).toBe(1);
    expect(o.err).toEqual(['bench: not ready within 120 s (log: /tmp/x/plugin.log)\n']);
    expect(o.out).toEqual([]);
    expect(o.cleanups()).toBe(1);
  });
});
