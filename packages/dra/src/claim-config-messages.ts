import type { ConfigField } from '@kdp/core';

/** What a value of each field type must be, as the decoder and the admission policy both word it. */
export const configTypeNames: Readonly<Record<Exclude<ConfigField['type'], 'refused'>, string>> = {
  string: 'must be a string',
  integer: 'must be an integer',
  boolean: 'must be a boolean',
  object: 'must be an object',
  stringMap: 'must be a map of strings',
  stringList: 'must be a list of strings',
};

/**
 * The messages of a claim configuration's checks, one wording for the driver's decoder (at prepare) and the
 * ValidatingAdmissionPolicy's CEL (at `kubectl create`).
 */
export const configMessages = {
  unknownField: 'unknown field',
  required: 'required field',
  enum: (values: readonly string[]): string => `must be one of ${values.join(', ')}`,
  pattern: (pattern: string): string => `must match ${pattern}`,
  maxLength: (max: number): string => `must be at most ${max} characters`,
  minimum: (min: number): string => `must be at least ${min}`,
  maximum: (max: number): string => `must be at most ${max}`,
  maxEntries: (max: number): string => `must have at most ${max} entries`,
  reservedKey: (why: string | undefined): string => why ?? 'reserved name',
  unknownKind: (taken: string): string => `unknown apiVersion/kind; this driver takes ${taken}`,
};

/** The kinds a driver takes, for messages: `gpu.kdp.dev/v1alpha1 GpuConfig, …`. */
export function kindList(kinds: readonly { apiVersion: string; kind: string }[]): string {
  return kinds.length === 0 ? 'no configuration' : kinds.map((k) => `${k.apiVersion} ${k.kind}`).join(', ');
}
