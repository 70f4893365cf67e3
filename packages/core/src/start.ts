/**
 * The first import of every plugin's `main.ts`, evaluated before any other module of the bundle: it holds V8's
 * optimizing compiler, TurboFan, off (`optimizing-compilers.ts`) until the first call the plugin serves; it lets
 * V8 drop the baseline code of functions that stopped running (`baseline-code-flushing.ts`); and it has zod
 * interpret the configuration schemas rather than generate code for them (`config/interpreted-schemas.ts`).
 *
 * @packageDocumentation
 * @module @kdp/core/start
 */
import { flushBaselineCode } from './baseline-code-flushing';
import { interpretSchemas } from './config/interpreted-schemas';
import { optimizingCompilers } from './optimizing-compilers';

optimizingCompilers.hold();
flushBaselineCode();
interpretSchemas();
