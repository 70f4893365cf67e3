import { badRequest } from './api-errors';
import { fieldSchemas, pruneUnknownFields } from './field-schemas';
import type { KubeObject, ResourceType } from './resource-types';

/** The `fieldValidation` query parameter: what to do with fields the kind does not declare. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The `fieldValidation` of a request (kube-apiserver's default when absent: `Warn`); another value is a 400. */
export function fieldValidationOf(query: URLSearchParams): FieldValidation {
  const value = query.get('fieldValidation') ?? 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw badRequest(`fieldValidation must be one of Ignore, Warn, Strict: got ${JSON.stringify(value)}`);
}

/**
 * Drops the fields `type` does not declare from `object` (in place), as decoding does. `Strict`: a 400 naming
 * them as kube-apiserver's strict decoding does; `Warn`: the warnings to send back; `Ignore`: none.
 */
export function checkDeclaredFields(type: ResourceType, object: KubeObject, mode: FieldValidation): string[] {
  const schema = fieldSchemas[type.plural];
  if (schema === undefined) return [];
  const unknown = pruneUnknownFields(object, schema).map((path) => `unknown field "${path}"`);
  if (unknown.length === 0 || mode === 'Ignore') return [];
  if (mode === 'Strict') {
    throw badRequest(
      `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ${unknown.join(', ')}`,
    );
  }
  return unknown;
}
