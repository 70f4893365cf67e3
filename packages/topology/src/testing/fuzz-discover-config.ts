import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { FastCheckModule } from './corrupt-tree';
import { discoverDocumentProblems } from './discover-document-problems';
import { createEscapeSentinel, type EscapeSentinel } from './escape-sentinel';
import {
  assertProperty,
  fuzzWorkDir,
  RUN_TIMEOUT_MS,
  type CommandOutcome,
  type FuzzMachine,
} from './fuzz-discover-scan';
import { hostileConfigCases, writeConfigCase } from './hostile-config-cases';
import { changedPaths, snapshotTree } from './snapshot-tree';

/** Options of {@link fuzzDiscoverConfig}. */
export interface DiscoverConfigFuzzOptions {
  /** The fixture tree discover runs on (a `SysfsFixture`'s base); copied once, never changed. */
  readonly template: { readonly base: string };
  /** Valid configurations (as objects) that the hostile ones are derived from. */
  readonly validConfigs: readonly unknown[];
  /** Runs `discover --output json --config <configFile>` on the machine. */
  readonly discover: (machine: FuzzMachine, configFile: string) => Promise<CommandOutcome>;
  /** Where paths in the configurations lead, checked after every run (default: one made and removed for this call). */
  readonly sentinel?: EscapeSentinel;
  /** More hostile strings for the fields this plugin's configuration has (device globs, directories). */
  readonly hostileStrings?: readonly string[];
  readonly numRuns: number;
  readonly seed: number;
  /** Where the machine copy and the configuration files go (default `fuzzWorkDir()`). */
  readonly workDir?: string;
}

/** What a configuration fuzz run saw. */
export interface DiscoverConfigFuzzReport {
  readonly runs: number;
  /** Runs that exited 0 (the hostile part was valid, defaulted or an unknown key warned about). */
  readonly accepted: number;
  /** Runs that exited 2 naming the file. */
  readonly rejected: number;
}

/** The own properties of a clean Object.prototype (read when this module loads, before any fuzz run). */
const PROTOTYPE_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));

/** The name of a link in each root of the fuzzed machine that leads to the sentinel. */
export const ESCAPE_LINK = 'kdp-escape';

/** A field path as a message names it (`configList[0].selectors`): one identifier or index, then more. */
const FIELD =
  /^(?:[A-Za-z_$][\w$-]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])(?:\.[A-Za-z_$][\w$-]*|\[(?:\d+|"(?:[^"\\]|\\.)*")\])*: /;

/**
 * Problems of the file as a whole, fair even when the change was deep inside: too large (pretty-printed deep
 * nesting is megabytes), or too deeply nested for the YAML parser.
 */
const WHOLE_FILE = /^(?:syntax error: |file is \d+ bytes)/;

/** Stack frames or runtime error names: what a crash prints and a handled problem never does. */
const CRASH = /\n\s+at |TypeError|RangeError|ReferenceError|ERR_[A-Z_]+/;

/**
 * Property: `discover --config` with a hostile configuration (a valid one with values replaced by hostile
 * ones, keys added — `__proto__` included — or removed; or raw text: alias bombs, 20,000-deep nesting, tags,
 * invalid UTF-8, a file over the size limit) either succeeds with a well-formed document (exit 0) or refuses
 * the file with exit 2 and only `FILE: [FIELD: ]problem` lines, naming a field whenever the text parsed and
 * the change was below the top level. Never a crash, a stack trace or a polluted `Object.prototype`; nothing
 * of the sentinel read or printed (paths in the configuration lead there through {@link ESCAPE_LINK} links
 * and `..`); nothing written into the machine. Rejects with the shrunk counterexample.
 */
export async function fuzzDiscoverConfig(
  fc: FastCheckModule,
  options: DiscoverConfigFuzzOptions,
): Promise<DiscoverConfigFuzzReport> {
  const sentinel = options.sentinel ?? createEscapeSentinel();
  const work = mkdtempSync(join(options.workDir ?? fuzzWorkDir(), 'kdp-config-fuzz-'));
  const base = join(work, 'machine');
  cpSync(options.template.base, base, { recursive: true, verbatimSymlinks: true });
  const machine: FuzzMachine = {
    base,
    root: join(base, 'sys'),
    procRoot: join(base, 'proc'),
    devRoot: join(base, 'dev'),
  };
  for (const root of [machine.root, machine.procRoot, machine.devRoot])
    if (existsSync(root)) symlinkSync(sentinel.dir, join(root, ESCAPE_LINK));
  const strings = [...(options.hostileStrings ?? []), ...hostileStrings(sentinel.dir)];
  const configCase = hostileConfigCases(fc, options.validConfigs, strings);
  let runs = 0;
  let accepted = 0;
  let rejected = 0;
  let counter = 0;
  const before = snapshotTree(base);
  try {
    await assertProperty(
      fc,
      fc.asyncProperty(configCase, async (input) => {
        const file = join(work, `config-${counter++}.yaml`);
        const written = writeConfigCase(file, input, options.validConfigs);
        try {
          const outcome = await options.discover(machine, file);
          const verdict = judgeRun(outcome, { ...written, file, base, before, sentinel });
          if (verdict === 'accepted') accepted += 1;
          else rejected += 1;
          runs += 1;
        } finally {
          rmSync(file, { force: true });
        }
      }),
      // A run that hangs (a blocking read of a FIFO) fails as itself; a normal run takes well under a second.
      { numRuns: options.numRuns, seed: options.seed, timeout: RUN_TIMEOUT_MS },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (options.sentinel === undefined) sentinel.remove();
  }
  return { runs, accepted, rejected };
}

/** Strings for every field: numbers in words, paths out of the roots (to `escape` among them), NUL, shell. */
function hostileStrings(escape: string): string[] {
  return [
    'NaN',
    'Infinity',
    '1e308',
    '0x10',
    '-1',
    '',
    ' ',
    '../../etc',
    '../../../../../../etc/passwd',
    '/etc/passwd',
    '/etc',
    escape,
    `${escape}/bait.txt`,
    `${escape}/bait.fifo`,
    `/dev/../..${escape}/bait/*`,
    `/dev/${ESCAPE_LINK}/*`,
    `/dev/${ESCAPE_LINK}/bait/*`,
    `/dev/${ESCAPE_LINK}/bait.fifo`,
    `/sys/${ESCAPE_LINK}/bait`,
    `${ESCAPE_LINK}/bait`,
    '\0',
    'a\nb',
    '\u202e',
    '$(touch /tmp/kdp-pwned)',
    '/dev/*',
    '/dev/**',
  ];
}

/** One discover run on one configuration file, and what the machine looked like before any. */
interface FuzzRun {
  readonly file: string;
  readonly shown: string;
  readonly fieldExpected: boolean;
  readonly base: string;
  readonly before: ReadonlyMap<string, string>;
  readonly sentinel: EscapeSentinel;
}

/** Whether the run accepted or rejected the file; throws (with the configuration) when it did neither cleanly. */
function judgeRun(outcome: CommandOutcome, run: FuzzRun): 'accepted' | 'rejected' {
  const fail = (what: string): Error => new Error(`${what}\nconfiguration:\n${run.shown}`);
  const printed = `${outcome.stdout}\n${outcome.stderr}`;
  if (run.sentinel.leaked(printed)) throw fail('discover printed what lies outside the roots');
  const touched = run.sentinel.problems();
  if (touched.length > 0) throw fail(touched.join('\n'));
  const written = changedPaths(run.before, snapshotTree(run.base));
  if (written.length > 0) throw fail(`discover wrote into the machine: ${written.join(', ')}`);
  const polluted = Object.getOwnPropertyNames(Object.prototype).filter((k) => !PROTOTYPE_KEYS.has(k));
  if (polluted.length > 0) throw fail(`Object.prototype was polluted with ${polluted.join(', ')}`);
  if (CRASH.test(outcome.stderr)) throw fail(`discover crashed (exit ${outcome.code}):\n${outcome.stderr}`);
  if (outcome.code === 0) {
    const check = discoverDocumentProblems(outcome.stdout, { forbiddenPathPart: run.base });
    if (!check.ok) throw fail(check.problems.join('\n'));
    return 'accepted';
  }
  if (outcome.code !== 2) throw fail(`discover exited ${outcome.code}:\n${outcome.stderr}`);
  const lines = outcome.stderr.split('\n').filter((line) => line !== '');
  const prefix = `${run.file}: `;
  const bad = lines.filter((line) => !line.includes(prefix));
  if (lines.length === 0 || bad.length > 0) throw fail(`exit 2 without naming the file:\n${outcome.stderr}`);
  const rest = lines.map((line) => line.slice(line.indexOf(prefix) + prefix.length));
  if (run.fieldExpected && !rest.some((line) => FIELD.test(line) || WHOLE_FILE.test(line)))
    throw fail(`exit 2 without naming a field:\n${outcome.stderr}`);
  return 'rejected';
}
