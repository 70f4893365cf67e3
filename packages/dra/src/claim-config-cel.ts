import type { ClaimConfigKind, ConfigField, ConfigObjectField } from '@kdp/core';
import { configMessages, configTypeNames, kindList } from './claim-config-messages';

/** One check of a configuration in CEL over the parameters `p`: true when it holds; the message when not. */
interface CelRule {
  readonly holds: string;
  /** A CEL string expression (it may name the offending key). */
  readonly message: string;
}

/** A CEL string literal. */
export function celString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

const celList = (values: readonly string[]): string => `[${values.map(celString).join(', ')}]`;

const celTypes: Readonly<Record<Exclude<ConfigField['type'], 'refused'>, string>> = {
  string: 'string',
  integer: 'int',
  boolean: 'bool',
  object: 'map',
  stringMap: 'map',
  stringList: 'list',
};

/** Where a field is: its CEL expression, the guard that it is present, and its path in messages. */
interface At {
  readonly expr: string;
  /** True when the field is present (its parents are objects); `true` for the parameters themselves. */
  readonly present: string;
  readonly path: string;
}

const when = (at: At, check: string): string =>
  at.present === 'true' ? check : `!(${at.present}) || ${check}`;
const dotted = (path: string): string => (path === '' ? '' : `.${path}`);
/** `<prefix> + '.<path>: <reason>'` (`prefix` a CEL string expression ending in `opaque.parameters`). */
const message = (prefix: string, path: string, reason: string): string =>
  `${prefix} + ${celString(`${dotted(path)}: ${reason}`)}`;
/** `<prefix> + '.<path>.' + <key> + ': <reason>'`, or `<path>[<key>]` for a map entry. */
const keyMessage = (prefix: string, path: string, key: string, reason: string, bracket = false): string =>
  `${prefix} + ${celString(`${dotted(path)}${bracket ? '[' : '.'}`)} + ${key} + ${celString(`${bracket ? ']' : ''}: ${reason}`)}`;

/** The rules of a string value `v` (a field or a list item): enum, length, pattern. */
function stringRules(field: Extract<ConfigField, { type: 'string' }>, v: string): [string, string][] {
  const rules: [string, string][] = [];
  if (field.enum !== undefined)
    rules.push([`${v} in ${celList(field.enum)}`, configMessages.enum(field.enum)]);
  if (field.maxLength !== undefined)
    rules.push([`size(${v}) <= ${field.maxLength}`, configMessages.maxLength(field.maxLength)]);
  if (field.pattern !== undefined)
    rules.push([`${v}.matches(${celString(field.pattern)})`, configMessages.pattern(field.pattern)]);
  return rules;
}

/** The rules of one field, in the decoder's order: its type, then its own limits, then its fields. */
function fieldRules(field: ConfigField, at: At, prefix: string): CelRule[] {
  if (field.type === 'refused')
    return [{ holds: `!(${at.present})`, message: message(prefix, at.path, field.message) }];
  const typed = `type(${at.expr}) == ${celTypes[field.type]}`;
  const rules: CelRule[] = [
    { holds: when(at, typed), message: message(prefix, at.path, configTypeNames[field.type]) },
  ];
  /** A check that only applies once the value has its type. */
  const add = (check: string, text: string): void => {
    rules.push({ holds: when(at, `!(${typed}) || ${check}`), message: text });
  };
  switch (field.type) {
    case 'string':
      for (const [check, reason] of stringRules(field, at.expr)) add(check, message(prefix, at.path, reason));
      break;
    case 'integer':
      if (field.minimum !== undefined)
        add(
          `${at.expr} >= ${field.minimum}`,
          message(prefix, at.path, configMessages.minimum(field.minimum)),
        );
      if (field.maximum !== undefined)
        add(
          `${at.expr} <= ${field.maximum}`,
          message(prefix, at.path, configMessages.maximum(field.maximum)),
        );
      break;
    case 'object':
      rules.push(...objectRules(field, at, prefix, []).slice(1));
      break;
    case 'stringMap': {
      if (field.maxEntries !== undefined)
        add(
          `size(${at.expr}) <= ${field.maxEntries}`,
          message(prefix, at.path, configMessages.maxEntries(field.maxEntries)),
        );
      const offending = (bad: string): string => `${at.expr}.filter(k, ${bad})[0]`;
      const keyRule = (ok: string, reason: string): void =>
        add(`${at.expr}.all(k, ${ok})`, keyMessage(prefix, at.path, offending(`!(${ok})`), reason, true));
      if (field.keyPattern !== undefined)
        keyRule(`k.matches(${celString(field.keyPattern)})`, configMessages.pattern(field.keyPattern));
      if (field.reservedKeys !== undefined)
        keyRule(`!(k in ${celList(field.reservedKeys)})`, configMessages.reservedKey(field.reservedMessage));
      keyRule(`type(${at.expr}[k]) == string`, configTypeNames.string);
      break;
    }
    case 'stringList':
      if (field.maxItems !== undefined)
        add(
          `size(${at.expr}) <= ${field.maxItems}`,
          message(prefix, at.path, configMessages.maxEntries(field.maxItems)),
        );
      add(`${at.expr}.all(x, type(x) == string)`, message(prefix, `${at.path}[*]`, configTypeNames.string));
      for (const [check, reason] of stringRules(field.items, 'x'))
        add(`${at.expr}.all(x, type(x) != string || ${check})`, message(prefix, `${at.path}[*]`, reason));
      break;
    case 'boolean':
      break;
  }
  return rules;
}

/** An object's rules: its type, no unknown field (naming the first), required fields, then each field's. */
function objectRules(schema: ConfigObjectField, at: At, prefix: string, extra: readonly string[]): CelRule[] {
  const typed = `type(${at.expr}) == map`;
  const isObject = at.present === 'true' ? typed : `${at.present} && ${typed}`;
  const allowed = celList([...extra, ...Object.keys(schema.fields)]);
  const rules: CelRule[] = [
    { holds: when(at, typed), message: message(prefix, at.path, configTypeNames.object) },
    {
      holds: `!(${isObject}) || ${at.expr}.all(k, k in ${allowed})`,
      message: keyMessage(
        prefix,
        at.path,
        `${at.expr}.filter(k, !(k in ${allowed}))[0]`,
        configMessages.unknownField,
      ),
    },
  ];
  const child = (key: string): At => ({
    expr: `${at.expr}.${key}`,
    present: `${isObject} && has(${at.expr}.${key})`,
    path: at.path === '' ? key : `${at.path}.${key}`,
  });
  for (const key of schema.required ?? [])
    rules.push({
      holds: `!(${isObject}) || has(${at.expr}.${key})`,
      message: message(prefix, child(key).path, configMessages.required),
    });
  for (const [key, field] of Object.entries(schema.fields))
    rules.push(...fieldRules(field, child(key), prefix));
  return rules;
}

/** The CEL condition that parameters `p` name this kind. */
export function celKindMatch(kind: ClaimConfigKind, p = 'p'): string {
  return `has(${p}.apiVersion) && has(${p}.kind) && ${p}.apiVersion == ${celString(kind.apiVersion)} && ${p}.kind == ${celString(kind.kind)}`;
}

/** A ValidatingAdmissionPolicy validation: its expression, its static message and its message expression. */
export interface CelValidation {
  readonly expression: string;
  readonly message: string;
  readonly messageExpression: string;
}

/**
 * The validations of a driver's parameters list `list` (a CEL list of `opaque.parameters`): each is an object
 * naming one of `kinds`, and each kind's fields hold, the message naming the first problem as the decoder does
 * (`<prefix>sharing.timeSlicing.intervl: unknown field`). `prefix` is a CEL string expression.
 */
export function claimConfigValidations(
  kinds: readonly ClaimConfigKind[],
  list: string,
  prefix: string,
): CelValidation[] {
  const top: At = { expr: 'p', present: 'true', path: '' };
  const versions = [...new Set(kinds.map((k) => k.apiVersion))];
  const taken = configMessages.unknownKind(kindList(kinds));
  const matchAny = kinds.map((k) => `(${celKindMatch(k)})`).join(' || ') || 'false';
  const validations: CelValidation[] = [
    {
      expression: `${list}.all(p, type(p) == map)`,
      message: `opaque.parameters: ${configTypeNames.object}`,
      messageExpression: `${list}.filter(p, type(p) != map).map(p, ${message(prefix, '', configTypeNames.object)})[0]`,
    },
    {
      expression: `${list}.all(p, type(p) != map || ${matchAny})`,
      message: `opaque.parameters: ${taken}`,
      messageExpression:
        `${list}.filter(p, type(p) == map && !(${matchAny})).map(p, ` +
        `!has(p.apiVersion) ? ${message(prefix, 'apiVersion', configMessages.required)} : ` +
        `!has(p.kind) ? ${message(prefix, 'kind', configMessages.required)} : ` +
        `p.apiVersion in ${celList(versions)} ? ${message(prefix, 'kind', taken)} : ${message(prefix, 'apiVersion', taken)})[0]`,
    },
  ];
  for (const kind of kinds) {
    const rules = objectRules(kind.schema, top, prefix, ['apiVersion', 'kind']).slice(1);
    const holds = rules.map((r) => `(${r.holds})`).join(' && ');
    const first = rules.reduceRight<string>((rest, r) => `!(${r.holds}) ? ${r.message} : ${rest}`, "''");
    validations.push({
      expression: `${list}.all(p, !(${celKindMatch(kind)}) || (${holds}))`,
      message: `opaque.parameters: not a valid ${kind.apiVersion} ${kind.kind}`,
      messageExpression: `${list}.filter(p, (${celKindMatch(kind)}) && !(${holds})).map(p, ${first})[0]`,
    });
  }
  return validations;
}
