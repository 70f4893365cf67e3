import { setFlagsFromString } from 'node:v8';

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
 * V8's optimizing compilers, Maglev and TurboFan, held off while a plugin starts. A start runs each of its
 * functions a few times (flags, configuration, discovery, the first registration); the interpreter and the
 * Sparkplug baseline compiler run it as fast, and what one optimization costs stays: compiling a single function
 * with TurboFan pages in about 4.5 MiB of Node's binary (its compiler's code), Maglev 1.5 MiB, resident for the
 * process's life. Measured on the idle GPU plugin, Node 24: 52.8 → 46.9 MiB file-backed, VmRSS 72.2 → 66.5 MiB.
 * Once the plugin serves they are turned on, so that the calls it serves (a burst of Allocates) are optimized.
 */
export interface OptimizingCompilers {
  /** Turns Maglev and TurboFan off, unless the user chose the tiers; whether they are held now. */
  hold(): boolean;
  /** Turns them back on, if `hold` turned them off; does nothing otherwise. */
  release(): void;
  /** Whether they are held off now. */
  readonly held: boolean;
}

/** The tiers held off by {@link OptimizingCompilers.hold}, and their flags to turn them off and on. */
const TIERS = ['maglev', 'turbofan'] as const;

/** Creates the gate of V8's optimizing compilers; nothing changes until `hold` is called. */
export function createOptimizingCompilers(options: OptimizingCompilersOptions = {}): OptimizingCompilers {
  const setFlags = options.setFlags ?? setFlagsFromString;
  const nodeOptions = options.nodeOptions ?? processNodeOptions;
  let held = false;
  return {
    hold() {
      if (held) return true;
      if (nodeOptions().some((option) => TIER_CHOICE.test(option.replaceAll('_', '-')))) return false;
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

/** `process.execArgv` and the words of `NODE_OPTIONS`. */
function processNodeOptions(): readonly string[] {
  return [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/).filter((w) => w !== '')];
}

/**
 * The process's optimizing compilers: held by `@kdp/core/start`, the first import of every plugin's `main.ts`,
 * and released by `serve` once its first scans are served.
 */
export const optimizingCompilers: OptimizingCompilers = createOptimizingCompilers();
