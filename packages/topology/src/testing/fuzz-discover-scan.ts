import { accessSync, constants, cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as FastCheck from 'fast-check';
import {
  corruptTree,
  listTreeEntries,
  restoreTree,
  treeCorruptions,
  type FastCheckModule,
  type TreeCorruption,
  type TreeEntry,
} from './corrupt-tree';
import { discoverDocumentProblems } from './discover-document-problems';
import { createEscapeSentinel, type EscapeSentinel } from './escape-sentinel';
import { changedPaths, snapshotTree } from './snapshot-tree';

/** What one in-process run of a plugin command returned (as `runPluginCommand` of `@kdp/core/testing`). */
export interface CommandOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The roots of one corrupted copy of a fixture, for the plugin's `--sysfs-root`, `--proc-root`, `--dev-root`. */
export interface FuzzMachine {
  readonly base: string;
  readonly root: string;
  readonly procRoot: string;
  readonly devRoot: string;
}

/** Options of {@link fuzzDiscoverScan}. */
export interface DiscoverScanFuzzOptions {
  /** Fixture trees (a `SysfsFixture`'s base with sys/, proc/, dev/); copied for every run, never changed. */
  readonly templates: readonly { readonly base: string }[];
  /** Runs `discover --output json` on a machine. */
  readonly discover: (machine: FuzzMachine) => Promise<CommandOutcome>;
  /** Where escaping links point, checked after every run (default: one made and removed for this call). */
  readonly sentinel?: EscapeSentinel;
  /** The top-level directories to corrupt: those the plugin reads (`['sys', 'dev']`). */
  readonly roots: readonly string[];
  readonly numRuns: number;
  readonly seed: number;
  /** At most this many corruptions per run (default 4). */
  readonly maxCorruptions?: number;
  /** Where the corrupted copies go (default `fuzzWorkDir`). */
  readonly workDir?: string;
}

/** What a fuzz run saw, so that a spec can show it was not vacuous. */
export interface DiscoverScanFuzzReport {
  readonly runs: number;
  /** Corruptions applied, by replacement kind (`link:sentinel`, `file`, …). */
  readonly applied: Readonly<Record<string, number>>;
  /** Runs that still listed at least one device. */
  readonly runsWithDevices: number;
  /** Runs whose output carried an exclusion or warning the uncorrupted machine did not. */
  readonly runsWithNewDiagnostics: number;
  /** Runs that listed fewer devices than the uncorrupted machine. */
  readonly runsWithLostDevices: number;
}

/** One line per corruption, for failure messages. */
export function describeCorruptions(corruptions: readonly TreeCorruption[]): string {
  return corruptions
    .map(({ path, replacement: r }) => {
      if (r.kind === 'file') {
        const text = Buffer.from(r.content).toString('latin1');
        return `${path} := file ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…(${text.length})` : text)}`;
      }
      if (r.kind === 'link') return `${path} := link ${JSON.stringify(r.target)}`;
      return `${path} := ${r.kind}`;
    })
    .join('\n');
}

/**
 * A directory for many short-lived copies of fixture trees: /dev/shm where it is a writable directory (copying
 * and deleting a tree there takes a tenth of the time it takes on a busy disk), else os.tmpdir().
 */
export function fuzzWorkDir(): string {
  try {
    if (statSync('/dev/shm').isDirectory()) {
      accessSync('/dev/shm', constants.W_OK);
      return '/dev/shm';
    }
  } catch {
    // no /dev/shm here
  }
  return tmpdir();
}

const kindOf = (corruption: TreeCorruption): string =>
  corruption.replacement.kind === 'link'
    ? `link:${corruption.replacement.target.to}`
    : corruption.replacement.kind;

/**
 * `fc.assert` with the failing run's own message after fast-check's (which names only the counterexample), so
 * that a failure reads whole in a log and `rejects.toThrow(/…/)` can match it.
 */
export async function assertProperty<T>(
  fc: FastCheckModule,
  property: FastCheck.IAsyncPropertyWithHooks<T>,
  parameters: FastCheck.Parameters<T>,
): Promise<void> {
  try {
    await fc.assert(property, parameters);
  } catch (error) {
    const cause = error instanceof Error ? error.cause : undefined;
    if (!(cause instanceof Error)) throw error;
    throw new Error(`${(error as Error).message}\nCause: ${cause.message}`, { cause });
  }
}

/** How long one fuzz run may take before it counts as hung: a hundred times what a run takes on a busy machine. */
export const RUN_TIMEOUT_MS = 10_000;

/** Stack frames or runtime error names: what a crash prints and a handled problem never does. */
const CRASH = /\n\s+at |TypeError|RangeError|ReferenceError|SyntaxError|ERR_[A-Z_]+/;

/**
 * Property: `discover` on a randomly corrupted copy of each template (see `treeCorruptions`) exits 0
 * with a well-formed document (`discoverDocumentProblems`), prints no crash, leaks nothing of the
 * sentinel, reads nothing of it (its FIFO keeps its bytes), writes nothing anywhere (the corrupted tree and
 * the sentinel are unchanged after the run), and, when only file contents were corrupted, explains having
 * fewer devices than the uncorrupted machine with a new exclusion or warning. Rejects with the shrunk
 * counterexample, or when the runs proved nothing (no device ever listed, no escaping link ever applied).
 * Each template is copied once; a run's corruptions are undone after it (`restoreTree`).
 */
export async function fuzzDiscoverScan(
  fc: FastCheckModule,
  options: DiscoverScanFuzzOptions,
): Promise<DiscoverScanFuzzReport> {
  const sentinel = options.sentinel ?? createEscapeSentinel();
  const work = mkdtempSync(join(options.workDir ?? fuzzWorkDir(), 'kdp-fuzz-'));
  const applied: Record<string, number> = {};
  let runs = 0;
  let runsWithDevices = 0;
  let runsWithNewDiagnostics = 0;
  let runsWithLostDevices = 0;
  const copy = (template: string, base: string): FuzzMachine => {
    rmSync(base, { recursive: true, force: true });
    cpSync(template, base, { recursive: true, verbatimSymlinks: true });
    return { base, root: join(base, 'sys'), procRoot: join(base, 'proc'), devRoot: join(base, 'dev') };
  };
  try {
    const templates = await Promise.all(
      options.templates.map(async (template, index) => {
        const machine = copy(template.base, join(work, `m${index}`));
        const outcome = await options.discover(machine);
        const check = discoverDocumentProblems(outcome.stdout, { forbiddenPathPart: machine.base });
        if (outcome.code !== 0 || !check.ok)
          throw new Error(
            `the uncorrupted template ${template.base} fails: ${outcome.code} ${outcome.stderr}`,
          );
        const entries: TreeEntry[] = listTreeEntries(template.base, options.roots);
        const kinds = new Map(entries.map((e) => [e.path, e.kind]));
        return {
          template,
          machine,
          entries,
          kinds,
          devices: check.devices,
          diagnostics: new Set(check.diagnostics),
        };
      }),
    );
    const cases = fc
      .nat({ max: templates.length - 1 })
      .chain((index) =>
        treeCorruptions(fc, (templates[index] as (typeof templates)[number]).entries, options).map(
          (corruptions) => ({ index, corruptions }),
        ),
      );
    await assertProperty(
      fc,
      fc.asyncProperty(cases, async ({ index, corruptions }) => {
        const pristine = templates[index] as (typeof templates)[number];
        const { machine } = pristine;
        const done = corruptTree(machine.base, corruptions, sentinel);
        let dirty = false;
        try {
          const fail = (what: string): Error =>
            new Error(`${what}\ncorruptions of ${pristine.template.base}:\n${describeCorruptions(done)}`);
          const before = snapshotTree(machine.base);
          const outcome = await options.discover(machine);
          const printed = `${outcome.stdout}\n${outcome.stderr}`;
          if (sentinel.leaked(printed)) {
            const line = printed.split('\n').find((l) => l.includes(sentinel.marker)) ?? '';
            throw fail(`discover printed what lies outside the roots: ${line.trim()}`);
          }
          const touched = sentinel.problems();
          if (touched.length > 0) throw fail(touched.join('\n'));
          const written = changedPaths(before, snapshotTree(machine.base));
          dirty = written.length > 0;
          if (dirty) throw fail(`discover wrote into the machine: ${written.join(', ')}`);
          if (outcome.code !== 0 || CRASH.test(outcome.stderr))
            throw fail(`discover exited ${outcome.code}:\n${outcome.stderr}`);
          const check = discoverDocumentProblems(outcome.stdout, { forbiddenPathPart: machine.base });
          if (!check.ok) throw fail(check.problems.join('\n'));
          runs += 1;
          for (const corruption of done) applied[kindOf(corruption)] = (applied[kindOf(corruption)] ?? 0) + 1;
          if (check.devices.length > 0) runsWithDevices += 1;
          const fresh = check.diagnostics.filter((d) => !pristine.diagnostics.has(d));
          if (fresh.length > 0) runsWithNewDiagnostics += 1;
          // Fewer devices than the uncorrupted machine (an ID may change: a USB device whose serial became
          // unreadable is known by its port) is fine when explained, or when the tree itself was cut up
          // (a device whose links or directories are gone has left, as on an unplug).
          const lost = pristine.devices.length - check.devices.length;
          if (lost > 0) runsWithLostDevices += 1;
          const contentOnly = done.every(
            (c) =>
              pristine.kinds.get(c.path) === 'file' &&
              c.replacement.kind !== 'delete' &&
              c.replacement.kind !== 'link',
          );
          if (contentOnly && lost > 0 && fresh.length === 0)
            throw fail(`${lost} device(s) fewer without a new exclusion or warning`);
        } finally {
          if (dirty) copy(pristine.template.base, machine.base);
          else restoreTree(machine.base, pristine.template.base, done);
        }
      }),
      // A run that hangs (a blocking read of a FIFO) fails as itself; a normal run takes well under a second.
      { numRuns: options.numRuns, seed: options.seed, timeout: RUN_TIMEOUT_MS },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (options.sentinel === undefined) sentinel.remove();
  }
  if (runsWithDevices === 0)
    throw new Error('fuzzDiscoverScan: no run listed a device; the templates prove nothing');
  if ((applied['link:sentinel'] ?? 0) === 0)
    throw new Error('fuzzDiscoverScan: no escaping link was applied; raise numRuns');
  return { runs, applied, runsWithDevices, runsWithNewDiagnostics, runsWithLostDevices };
}
