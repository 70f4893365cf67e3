import { fuzzParameters } from './fuzz-parameters';

describe('fuzzParameters', () => {
  const defaults = { seed: 18, numRuns: 60 };

  it('keeps a spec’s own seed and run count unless the environment asks for a longer hunt', () => {
    expect(fuzzParameters(defaults, {})).toEqual(defaults);
    expect(fuzzParameters(defaults, { KDP_FUZZ_RUNS: '2000', KDP_FUZZ_SEED: '7' })).toEqual({
      seed: 7,
      numRuns: 2000,
    });
    expect(fuzzParameters(defaults, { KDP_FUZZ_RUNS: '' })).toEqual(defaults);
  });

  it('refuses what is not a positive integer instead of running with a default', () => {
    expect(() => fuzzParameters(defaults, { KDP_FUZZ_RUNS: 'many' })).toThrow(
      'KDP_FUZZ_RUNS=many: expected a positive integer',
    );
    expect(() => fuzzParameters(defaults, { KDP_FUZZ_SEED: '0' })).toThrow(
      'KDP_FUZZ_SEED=0: expected a positive integer',
    );
  });
});
