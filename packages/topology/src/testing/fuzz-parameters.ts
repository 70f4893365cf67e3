/** fast-check's seed and run count for one fuzz property. */
export interface FuzzParameters {
  readonly seed: number;
  readonly numRuns: number;
}

/**
 * The seed and run count a fuzz spec runs with: its own fixed ones, or `KDP_FUZZ_SEED` / `KDP_FUZZ_RUNS` from
 * the environment (positive integers) for a longer hunt (`KDP_FUZZ_RUNS=2000 KDP_FUZZ_SEED=7 npx jest …`).
 */
export function fuzzParameters(
  defaults: FuzzParameters,
  env: Readonly<Record<string, string | undefined>> = process.env,
): FuzzParameters {
  const read = (name: string, fallback: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < 1)
      throw new Error(`${name}=${text}: expected a positive integer`);
    return value;
  };
  return { seed: read('KDP_FUZZ_SEED', defaults.seed), numRuns: read('KDP_FUZZ_RUNS', defaults.numRuns) };
}
