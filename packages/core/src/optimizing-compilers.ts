import { setFlagsFromString } from 'node:v8';
import { chosenByUser, processNodeOptions } from './node-options';

/**
 * V8 options with which a user chose the compiler tiers: then they are left as chosen. `--jitless` (and
 * `--lite-mode`, which implies it) must never see them turned on: such a process has no executable memory.
 */
const TIER_CHOICE = /^--(?:no-?)?(?:turbofan|opt|maglev|jitless|lite-mode|max-opt)(?:=|$)/;

/** Options of {@link createOptimizingCompilers}. */
export interface OptimizingCompilersOptions {
  /** Sets V8 flags; default `v8.setFlagsFromString`. */
  readonly setFlags?: (flags: string) => void;
  /** The options Node was started with; default `process.execArgv` and the words of `NODE_OPTIONS`. */
  readonly nodeOptions?: () => readonly string[];
}

/**
 * V8's top compiler, TurboFan, held off from a plugin's start until the first call it serves. A start runs each of
 * its functions a few times (flags, configuration, discovery, registration) and an idle plugin runs its probes once
 * a second: the interpreter, Sparkplug and Maglev run them about as fast, and what a TurboFan compilation costs
 * stays. Its first one pages in about 4.5 MiB of Node's binary (the compiler's own code), resident for the
 * process's life; Maglev's is 1.4 MiB, and Maglev stays on. Measured on the GPU plugin, Node 24: its start
 * optimized 2 functions with TurboFan and 30 with Maglev (51.6 MiB file-backed when idle, 46.3 held). Held only
 * until it serves, its probes alone brought TurboFan in after 10 to 15 minutes idle. Held until the first call,
 * the calls are optimized as before (Allocate p50 1.07–1.09× the naive plugin's); holding Maglev too saved another
 * 0.5 MiB but left Allocate at 1.15–1.20×: the functions that ran while both were off tiered up only after
 * thousands of further calls.
 */
export interface OptimizingCompilers {
  /** Turns TurboFan off, unless the user chose the tiers; whether it is held now. */
  hold(): boolean;
  /** Turns it back on, if `hold` turned it off; does nothing otherwise. */
  release(): void;
  /** Whether it is held off now. */
  readonly held: boolean;
}

/** The tiers held off by {@link OptimizingCompilers.hold}: `--no-<tier>` turns one off, `--<tier>` on. */
const TIERS = ['turbofan'] as const;

/** Creates the gate of V8's optimizing compiler; nothing changes until `hold` is called. */
export function createOptimizingCompilers(options: OptimizingCompilersOptions = {}): OptimizingCompilers {
  const setFlags = options.setFlags ?? setFlagsFromString;
  const nodeOptions = options.nodeOptions ?? processNodeOptions;
  let held = false;
  return {
    hold() {
      if (held) return true;
      if (chosenByUser(nodeOptions(), TIER_CHOICE)) return false;
      for (const tier of TIERS) setFlags(`--no-${tier}`);
      held = true;
      return true;
    },
    release() {
      if (!held) return;
      for (const tier of TIERS) setFlags(`--${tier}`);
      held = false;
    },
    get held() {
      return held;
    },
  };
}

/**
 * The process's optimizing compiler gate: held by `@kdp/core/start`, the first import of every plugin's `main.ts`,
 * and released by the first call the process serves (`unaryReply`), or in DRA mode once its drivers serve.
 */
export const optimizingCompilers: OptimizingCompilers = createOptimizingCompilers();
