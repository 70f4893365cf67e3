import { config } from 'zod';

/**
 * Makes zod check every configuration by interpreting its schemas (`jitless`), never by code it generates.
 * By default zod compiles each object schema, on its first parse, into a function built with `new Function`; a
 * configuration is parsed once at the start and once per reload, so that code generation is all cost: it ran
 * for every schema of every hosted plugin at the start, on the path to registering. It also makes the process
 * independent of code generation from strings, which the images forbid
 * (`--disallow-code-generation-from-strings`). Global for the process: zod keeps its configuration on `globalThis`.
 */
export function interpretSchemas(): void {
  config({ jitless: true });
}
