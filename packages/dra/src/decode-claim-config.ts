import type { ClaimConfigKind, ClaimConfigValue, ConfigField, ConfigObjectField } from '@kdp/core';
import { configMessages, configTypeNames, kindList } from './claim-config-messages';

/** A configuration refused at a field: `path` from `opaque.parameters` (`sharing.timeSlicing.intervl`). */
export class ConfigFieldError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'ConfigFieldError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks one value against its field; throws the first problem with its path. */
function checkField(field: ConfigField, value: unknown, path: string): void {
  const fail = (reason: string): never => {
    throw new ConfigFieldError(path, reason);
  };
  switch (field.type) {
    case 'refused':
      return fail(field.message);
    case 'string':
      if (typeof value !== 'string') return fail(configTypeNames.string);
      if (field.enum !== undefined && !field.enum.includes(value)) fail(configMessages.enum(field.enum));
      if (field.maxLength !== undefined && [...value].length > field.maxLength)
        fail(configMessages.maxLength(field.maxLength));
      if (field.pattern !== undefined && !new RegExp(field.pattern).test(value))
        fail(configMessages.pattern(field.pattern));
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return fail(configTypeNames.integer);
      if (field.minimum !== undefined && value < field.minimum) fail(configMessages.minimum(field.minimum));
      if (field.maximum !== undefined && value > field.maximum) fail(configMessages.maximum(field.maximum));
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail(configTypeNames.boolean);
      return;
    case 'object':
      return checkObject(field, value, path);
    case 'stringMap': {
      if (!isRecord(value)) return fail(configTypeNames.stringMap);
      const keys = Object.keys(value);
      if (field.maxEntries !== undefined && keys.length > field.maxEntries)
        fail(configMessages.maxEntries(field.maxEntries));
      for (const key of keys) {
        const at = `${path}[${key}]`;
        if (field.keyPattern !== undefined && !new RegExp(field.keyPattern).test(key))
          throw new ConfigFieldError(at, configMessages.pattern(field.keyPattern));
        if (field.reservedKeys?.includes(key))
          throw new ConfigFieldError(at, configMessages.reservedKey(field.reservedMessage));
        if (typeof value[key] !== 'string') throw new ConfigFieldError(at, configTypeNames.string);
      }
      return;
    }
    case 'stringList':
      if (!Array.isArray(value)) return fail(configTypeNames.stringList);
      if (field.maxItems !== undefined && value.length > field.maxItems)
        fail(configMessages.maxEntries(field.maxItems));
      value.forEach((item, i) => checkField(field.items, item, `${path}[${i}]`));
      return;
  }
}

/** An object: its own type, no unknown field, required fields present, each field checked. */
function checkObject(
  schema: ConfigObjectField,
  value: unknown,
  path: string,
  ignore: readonly string[] = [],
) {
  const at = (key: string): string => (path === '' ? key : `${path}.${key}`);
  if (!isRecord(value)) throw new ConfigFieldError(path, configTypeNames.object);
  for (const key of Object.keys(value))
    if (!(key in schema.fields) && !ignore.includes(key))
      throw new ConfigFieldError(at(key), configMessages.unknownField);
  for (const key of schema.required ?? [])
    if (value[key] === undefined) throw new ConfigFieldError(at(key), configMessages.required);
  for (const [key, field] of Object.entries(schema.fields))
    if (value[key] !== undefined) checkField(field, value[key], at(key));
}

/**
 * The strict decoder of a driver's configuration kinds: `opaque.parameters` must name one of `kinds` by
 * `apiVersion` and `kind` and hold exactly its fields, each of its type and within its limits. Throws a
 * {@link ConfigFieldError} naming the first problem's path (`sharing.timeSlicing.intervl: unknown field`).
 */
export function createClaimConfigDecoder(
  kinds: readonly ClaimConfigKind[],
): (parameters: unknown) => ClaimConfigValue {
  return (parameters) => {
    if (!isRecord(parameters)) throw new ConfigFieldError('', configTypeNames.object);
    for (const key of ['apiVersion', 'kind'] as const) {
      if (parameters[key] === undefined) throw new ConfigFieldError(key, configMessages.required);
      if (typeof parameters[key] !== 'string') throw new ConfigFieldError(key, configTypeNames.string);
    }
    const kind = kinds.find(
      (k) => k.apiVersion === parameters['apiVersion'] && k.kind === parameters['kind'],
    );
    if (kind === undefined) {
      const known = kinds.some((k) => k.apiVersion === parameters['apiVersion']);
      throw new ConfigFieldError(known ? 'kind' : 'apiVersion', configMessages.unknownKind(kindList(kinds)));
    }
    checkObject(kind.schema, parameters, '', ['apiVersion', 'kind']);
    return parameters as ClaimConfigValue;
  };
}
