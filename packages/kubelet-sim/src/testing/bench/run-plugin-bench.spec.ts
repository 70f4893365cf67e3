import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeletSim } from '../../kubelet-sim-types';
import { bundleEntry, type EntryBundle } from '../bundle-entry';
import { type BenchStep, type PluginBenchScenario, runPluginBench } from './run-plugin-bench';

const RESOURCE = 'example.com/bench';
/** How long the fixture plugin waits after a change before it reports it. */
const LAG_MS = 150;

describe('runPluginBench', () => {
  let bundle: EntryBundle;
  let root: string;
  let stateFile: string;
  let benchTmp: string;

  beforeAll(() => {
    bundle = bundleEntry(join(__dirname, 'bench-plugin.fixture.ts'));
  });
  afterAll(() => bundle.remove());
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kdp-bench-spec-'));
    stateFile = join(root, 'state', 'devices.json');
    benchTmp = join(root, 'tmp');
    for (const dir of [join(root, 'state'), benchTmp]) mkdirSync(dir);
    write(['a', 'b'], []);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function write(ids: string[], unhealthy: string[]): void {
    writeFileSync(`${stateFile}.tmp`, JSON.stringify({ ids, unhealthy }));
    renameSync(`${stateFile}.tmp`, stateFile);
  }
  const state = (sim: KubeletSim) => sim.resource(RESOURCE);
  const scenario = (
    cycles: PluginBenchScenario['cycles'],
    bundlePath = bundle.path,
  ): PluginBenchScenario => ({
    title: 'bench fixture, 2 devices',
    bundle: bundlePath,
    args: (dir) => [dir, stateFile, String(LAG_MS)],
    ready: (sim) => state(sim)?.registered === true && state(sim)?.devices.length === 2,
    cycles,
  });
  const down: BenchStep = {
    kind: 'health down',
    apply: () => write(['a', 'b'], ['b']),
    seen: (sim) => state(sim)?.unhealthy.includes('b') === true,
  };
  const up: BenchStep = {
    kind: 'health up',
    apply: () => write(['a', 'b'], []),
    seen: (sim) => state(sim)?.healthy.includes('b') === true,
  };
  const removed: BenchStep = {
    kind: 'device removed',
    apply: () => write(['a'], []),
    seen: (sim) => state(sim)?.devices.length === 1,
    targetMs: 100,
  };
  const added: BenchStep = {
    kind: 'device added',
    apply: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      write(['a', 'b'], []);
    },
    seen: (sim) => state(sim)?.devices.length === 2,
  };

  it('measures idle usage, then every change from its apply to the kubelet-sim event that shows it', async () => {
    const delays: number[] = [];
    const progress: string[] = [];
    const result = await runPluginBench(
      scenario([
        [down, up],
        [removed, added],
      ]),
      {
        idleMs: 300,
        rounds: 3,
        maxDelayMs: 40,
        random: () => {
          delays.push(delays.length);
          return 0.5;
        },
        tmpDir: benchTmp,
        progress: (line) => progress.push(line),
      },
    );
    expect(result.title).toBe('bench fixture, 2 devices');
    expect(result.rounds).toBe(3);
    expect(delays).toHaveLength(12);
    expect(result.latencies.map((l) => [l.kind, l.count, l.targetMs])).toEqual([
      ['health down', 3, 1000],
      ['health up', 3, 1000],
      ['device removed', 3, 100],
      ['device added', 3, 1000],
    ]);
    for (const l of result.latencies) {
      // The plugin reports each change LAG_MS after it: a clock that started late or stopped early is caught.
      expect(l.p50Ms).toBeGreaterThanOrEqual(LAG_MS);
      expect(l.p50Ms).toBeLessThanOrEqual(l.p99Ms);
      expect(l.p99Ms).toBeLessThanOrEqual(l.maxMs);
      expect(l.maxMs).toBeLessThan(LAG_MS + 10_000);
    }
    // Timers may fire a fraction of a millisecond early against performance.now(): a little slack, no more.
    expect(result.idleMs).toBeGreaterThanOrEqual(295);
    expect(result.idleTicks).toBeGreaterThanOrEqual(0);
    expect(result.idleCpuPercent).toBeCloseTo(
      (result.idleTicks / result.ticksPerSecond / (result.idleMs / 1000)) * 100,
    );
    expect(result.rssMiB).toBeGreaterThan(10);
    expect(result.startMs).toBeGreaterThan(0);
    expect(result.environment).toContain(process.version);
    expect(progress).toHaveLength(3);
    expect(readdirSync(benchTmp)).toEqual([]);
  }, 60_000);

  it('fails naming the kept log when a change never reaches the kubelet', async () => {
    const lost: BenchStep = { kind: 'lost', apply: () => undefined, seen: () => false };
    const run = runPluginBench(scenario([[lost]]), {
      idleMs: 0,
      rounds: 1,
      maxDelayMs: 0,
      changeTimeoutMs: 500,
      tmpDir: benchTmp,
    });
    await expect(run).rejects.toThrow(/"lost" \(round 1\): not seen within 0.5 s \(log: .*plugin\.log\)/);
    const [kept = ''] = readdirSync(benchTmp);
    expect(existsSync(join(benchTmp, kept, 'plugin.log'))).toBe(true);
  }, 30_000);

  it('refuses a step that shows before its change', async () => {
    const always: BenchStep = { kind: 'always', apply: () => undefined, seen: () => true };
    await expect(
      runPluginBench(scenario([[always]]), { idleMs: 0, rounds: 1, maxDelayMs: 0, tmpDir: benchTmp }),
    ).rejects.toThrow('"always" (round 1): seen before the change was applied');
  }, 30_000);

  it('fails at once when the plugin exits', async () => {
    const exits = join(root, 'exits.js');
    writeFileSync(exits, 'console.error("no devices here"); process.exit(3);');
    const started = Date.now();
    await expect(
      runPluginBench(scenario([[down]], exits), { readyTimeoutMs: 60_000, tmpDir: benchTmp }),
    ).rejects.toThrow(/the plugin exited \(log: .*plugin\.log\)/);
    // Well before the 60 s ready timeout: the exit, not the timeout, ended the wait.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
