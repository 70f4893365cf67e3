/**
 * The first import of every plugin's `main.ts`, evaluated before any other module of the bundle: it holds V8's
 * optimizing compiler, TurboFan, off (`optimizing-compilers.ts`) until the first call the plugin serves.
 *
 * @packageDocumentation
 * @module @kdp/core/start
 */
import { optimizingCompilers } from './optimizing-compilers';

optimizingCompilers.hold();
