/**
 * The part of zod that kdp's configuration schemas use, re-exported name by name and exported from the package
 * index as the namespace `z`. zod's own `z` namespace holds every export, its 64 error-message locales (267 kB of
 * each 1.5 MB bundle) among them, and a bundle that takes it keeps them all; a namespace of single names lets
 * esbuild drop what no schema uses. Add a name here when a schema needs one.
 */
export {
  array,
  boolean,
  enum,
  literal,
  looseObject,
  never,
  number,
  object,
  record,
  strictObject,
  string,
  union,
  unknown,
} from 'zod';
export type { ZodType, input, output } from 'zod';
