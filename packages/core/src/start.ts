/**
 * The first import of every plugin's `main.ts`, evaluated before any other module of the bundle: it holds V8's
 * optimizing compiler, TurboFan, off (`optimizing-compilers.ts`) until the first call the plugin serves, and lets
 * V8 drop the baseline code of functions that stopped running (`baseline-code-flushing.ts`).
 *
 * @packageDocumentation
 * @module @kdp/core/start
 */
import { flushBaselineCode } from './baseline-code-flushing';
import { optimizingCompilers } from './optimizing-compilers';

optimizingCompilers.hold();
flushBaselineCode();
