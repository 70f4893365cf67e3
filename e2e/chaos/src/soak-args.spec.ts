import { parseSoakArgs } from './soak-args';

describe('parseSoakArgs', () => {
  const fresh = () => 77;

  it('defaults to 1000 cycles, a fresh seed and 60 minutes', () => {
    expect(parseSoakArgs([], fresh)).toEqual({ cycles: 1000, seed: 77, maxMinutes: 60, dra: false });
  });

  it('takes each flag with a separate or an inline value (as nx forwards them)', () => {
    expect(parseSoakArgs(['--cycles', '25', '--seed=0', '--max-minutes', '0.5'], fresh)).toEqual({
      cycles: 25,
      seed: 0,
      maxMinutes: 0.5,
      dra: false,
    });
  });

  it('takes --dra anywhere', () => {
    expect(parseSoakArgs(['--cycles', '5', '--dra'], fresh)).toEqual({
      cycles: 5,
      seed: 77,
      maxMinutes: 60,
      dra: true,
    });
  });

  it.each([
    [['--cycles', '0'], '--cycles: "0" is no positive integer'],
    [['--cycles', '1.5'], '--cycles: "1.5" is no positive integer'],
    [['--seed', '-1'], '--seed: "-1" is no integer from 0 to 2^32-1'],
    [['--max-minutes', '0'], '--max-minutes: "0" is no positive number'],
    [['--cycles'], '--cycles needs a value'],
    [['--rounds', '3'], 'unknown argument "--rounds"'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseSoakArgs(argv, fresh)).toThrow(message);
  });
});
