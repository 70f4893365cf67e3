import { formatPluginBench } from './format-plugin-bench';
import { PLUGIN_BENCH_USAGE, type PluginBenchArgs, parsePluginBenchArgs } from './parse-plugin-bench-args';
import { type PluginBenchResult, type PluginBenchScenario, runPluginBench } from './run-plugin-bench';

/** Options of {@link runPluginBenchCli}. */
export interface PluginBenchCliOptions {
  /** The bench's arguments; default `process.argv.slice(2)`. */
  readonly argv?: readonly string[];
  /** Removes the scenario's fixture; called once at the end, whatever happened. */
  readonly cleanup?: () => void;
  /** Where the table goes; default stdout. */
  readonly stdout?: (text: string) => void;
  /** Where progress, usage and errors go; default stderr. */
  readonly stderr?: (text: string) => void;
  /** The bench itself; default `runPluginBench` (tests replace it). */
  readonly run?: (
    scenario: PluginBenchScenario,
    args: PluginBenchArgs & {
      progress(line: string): void;
    },
  ) => Promise<PluginBenchResult>;
}

/**
 * The whole `main` of a plugin's `bench/bench.ts`: parses `--idle` and `--rounds`, runs the scenario and
 * prints `formatPluginBench`'s table. Resolves with the exit code: 0, 1 when the bench failed, 2 on a
 * usage error.
 */
export async function runPluginBenchCli(
  scenario: PluginBenchScenario,
  options: PluginBenchCliOptions = {},
): Promise<number> {
  const stdout = options.stdout ?? ((text: string) => void process.stdout.write(text));
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const run = options.run ?? runPluginBench;
  try {
    let args: PluginBenchArgs;
    try {
      args = parsePluginBenchArgs(options.argv ?? process.argv.slice(2));
    } catch (err) {
      stderr(`bench: ${(err as Error).message}\n${PLUGIN_BENCH_USAGE}`);
      return 2;
    }
    try {
      const result = await run(scenario, { ...args, progress: (line) => stderr(`bench: ${line}\n`) });
      stdout(formatPluginBench(result));
      return 0;
    } catch (err) {
      stderr(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
  } finally {
    options.cleanup?.();
  }
}
