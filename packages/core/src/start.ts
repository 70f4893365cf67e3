/**
 * The first import of every plugin's `main.ts`, evaluated before any other module of the bundle: it holds V8's
 * optimizing compilers off for the start (`optimizing-compilers.ts`); `serve` turns them on once it serves.
 *
 * @packageDocumentation
 * @module @kdp/core/start
 */
import { optimizingCompilers } from './plugin/optimizing-compilers';

optimizingCompilers.hold();
