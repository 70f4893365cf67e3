/** The bench options a plugin's bench.ts takes on its command line. */
export interface PluginBenchArgs {
  /** `--idle DURATION`: the idle window after registration; default 60 s. */
  readonly idleMs: number;
  /** `--rounds N`: how often each cycle of changes runs; default 50. */
  readonly rounds: number;
}

/** The usage text of {@link parsePluginBenchArgs}'s flags. */
export const PLUGIN_BENCH_USAGE = `Usage: bench [--idle DURATION] [--rounds N]

  --idle DURATION   idle window after registration, for CPU and RSS (500ms, 60s, 2m) [60s]
  --rounds N        how often each cycle of changes runs; latency percentiles are over these [50]
`;

const UNIT_MS = { ms: 1, s: 1000, m: 60_000 } as const;

/** A duration such as `500ms`, `60s`, `1.5m` in milliseconds; throws naming `flag` otherwise. */
export function parseBenchDuration(text: string, flag = 'duration'): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text);
  if (match === null) throw new Error(`${flag}: "${text}" is no duration (500ms, 60s, 2m)`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** Parses `--idle 60s --rounds 50` (also `--idle=60s`); throws on anything else. */
export function parsePluginBenchArgs(argv: readonly string[]): PluginBenchArgs {
  let idleMs = 60_000;
  let rounds = 50;
  for (let i = 0; i < argv.length; i++) {
    const [flag = '', inline] = (argv[i] ?? '').split(/=(.*)/s, 2);
    const value = (): string => {
      const next = inline ?? argv[++i];
      if (next === undefined) throw new Error(`${flag} needs a value`);
      return next;
    };
    if (flag === '--idle') idleMs = parseBenchDuration(value(), flag);
    else if (flag === '--rounds') {
      const text = value();
      rounds = Number(text);
      if (!/^\d+$/.test(text) || rounds < 1) throw new Error(`--rounds: "${text}" is no positive integer`);
    } else throw new Error(`unknown argument "${argv[i]}"`);
  }
  return { idleMs, rounds };
}
