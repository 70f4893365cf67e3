/** The soak's command line. */
export interface SoakArgs {
  /** `--cycles N`: how many disruptions; default 1000. */
  readonly cycles: number;
  /** `--seed S`: the schedule's seed; default a fresh one (printed, so a run can be repeated). */
  readonly seed: number;
  /** `--max-minutes M`: no new cycle starts after this long; default 60. */
  readonly maxMinutes: number;
  /** `--dra`: the DRA soak (the drivers against the DRA playground) instead of the device-plugin one. */
  readonly dra: boolean;
}

/** The usage text of {@link parseSoakArgs}'s flags. */
export const SOAK_USAGE = `Usage: soak [--dra] [--cycles N] [--seed S] [--max-minutes M]

  --dra             soak the DRA drivers (serve --mode dra) against the DRA playground
  --cycles N        disruptions to run, randomly mixed [1000]
  --seed S          seed of the random schedule (an integer), to repeat a run [fresh, printed]
  --max-minutes M   start no new cycle after this many minutes (the table says so) [60]
`;

const integer = (text: string): boolean => /^\d+$/.test(text);

/** Each flag's check and what it wants. */
const FLAGS = {
  '--cycles': { valid: (text: string, n: number) => integer(text) && n >= 1, what: 'positive integer' },
  '--seed': {
    valid: (text: string, n: number) => integer(text) && n < 2 ** 32,
    what: 'integer from 0 to 2^32-1',
  },
  '--max-minutes': { valid: (_: string, n: number) => Number.isFinite(n) && n > 0, what: 'positive number' },
} as const;

/** Parses `--cycles 1000 --seed 7 --max-minutes 30` (also `--cycles=1000`); throws on anything else. */
export function parseSoakArgs(argv: readonly string[], freshSeed: () => number): SoakArgs {
  const values: Record<string, number> = {};
  let dra = false;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--dra') {
      dra = true;
      continue;
    }
    const [flag = '', inline] = (argv[i] ?? '').split(/=(.*)/s, 2);
    if (!Object.hasOwn(FLAGS, flag)) throw new Error(`unknown argument "${argv[i]}"`);
    const text = inline ?? argv[++i];
    if (text === undefined) throw new Error(`${flag} needs a value`);
    const value = Number(text);
    const kind = FLAGS[flag as keyof typeof FLAGS];
    if (!kind.valid(text, value)) throw new Error(`${flag}: "${text}" is no ${kind.what}`);
    values[flag] = value;
  }
  return {
    cycles: values['--cycles'] ?? 1000,
    seed: values['--seed'] ?? freshSeed(),
    maxMinutes: values['--max-minutes'] ?? 60,
    dra,
  };
}
