import type { StatusCause } from './api-errors';
import {
  DeviceMaxIdLength,
  DeviceRequestsMaxSize,
  DriverNameMaxLength,
  OpaqueParametersMaxLength,
  PoolNameMaxLength,
} from './validation-limits';

/*
 * Field checks shared by the validation of every kind, with apimachinery's wording.
 */

/** What validation may use beyond the object: the CEL compiler, when the server was given one. */
export interface ValidationContext {
  readonly validateCel?: ((expression: string) => string | undefined) | undefined;
}

export const dns1123LabelRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const dns1123SubdomainRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const cIdentifierRe = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const semverRe =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$/;
export const quantityRe = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?\d+)?$/;

export const labelMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
export const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
export const cIdentifierMessage =
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";

/** Collects field problems with the apimachinery `field.Error` wording. */
export class Errors {
  readonly causes: StatusCause[] = [];
  required(field: string, detail = ''): void {
    this.causes.push({
      reason: 'FieldValueRequired',
      message: `Required value${detail ? `: ${detail}` : ''}`,
      field,
    });
  }
  invalid(field: string, value: unknown, detail: string): void {
    this.causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${goValue(value)}: ${detail}`,
      field,
    });
  }
  tooLong(field: string, max: number): void {
    this.causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${max} bytes`,
      field,
    });
  }
  tooMany(field: string, actual: number, max: number): void {
    this.causes.push({
      reason: 'FieldValueTooMany',
      message: `Too many: ${actual}: must have at most ${max} items`,
      field,
    });
  }
  duplicate(field: string, value: unknown): void {
    this.causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${goValue(value)}`, field });
  }
  forbidden(field: string, detail: string): void {
    this.causes.push({ reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field });
  }
  notSupported(field: string, value: unknown, supported: readonly string[]): void {
    this.causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${goValue(value)}: supported values: ${supported.map((v) => `"${v}"`).join(', ')}`,
      field,
    });
  }
  notFound(field: string, value: unknown): void {
    this.causes.push({ reason: 'FieldValueNotFound', message: `Not found: ${goValue(value)}`, field });
  }
}

export function goValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
export const asRecord = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
export const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function dnsLabel(errors: Errors, field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return errors.required(field);
  if (value.length > 63) errors.invalid(field, value, 'must be no more than 63 characters');
  if (!dns1123LabelRe.test(value)) errors.invalid(field, value, labelMessage);
}

export function dnsSubdomain(errors: Errors, field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return errors.required(field);
  if (value.length > 253) errors.invalid(field, value, 'must be no more than 253 characters');
  if (!dns1123SubdomainRe.test(value)) errors.invalid(field, value, subdomainMessage);
}

/** A DRA driver name: the CSI driver name rules (required, ≤ 63, a DNS subdomain after lower-casing). */
export function driverName(errors: Errors, field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return errors.required(field);
  if (value.length > DriverNameMaxLength) errors.tooLong(field, DriverNameMaxLength);
  if (!dns1123SubdomainRe.test(value.toLowerCase())) errors.invalid(field, value, subdomainMessage);
}

export function poolName(errors: Errors, field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return errors.required(field);
  if (value.length > PoolNameMaxLength) errors.tooLong(field, PoolNameMaxLength);
  for (const part of value.split('/')) {
    if (part === '' || !dns1123SubdomainRe.test(part)) errors.invalid(field, part, subdomainMessage);
  }
}

/** An attribute or capacity name: `[domain/]id`, domain a DNS subdomain ≤ 63, id a C identifier ≤ 32. */
export function qualifiedName(errors: Errors, field: string, name: string): void {
  if (name === '') return errors.required(field, 'name required');
  const slash = name.indexOf('/');
  const domain = slash >= 0 ? name.slice(0, slash) : undefined;
  const id = slash >= 0 ? name.slice(slash + 1) : name;
  if (domain !== undefined) {
    if (domain === '') errors.required(field, 'the domain must not be empty');
    else {
      if (domain.length > DriverNameMaxLength) errors.tooLong(field, DriverNameMaxLength);
      if (!dns1123SubdomainRe.test(domain)) errors.invalid(field, domain, subdomainMessage);
    }
  }
  if (id === '') errors.required(field, 'name required');
  else {
    if (!cIdentifierRe.test(id)) errors.invalid(field, id, cIdentifierMessage);
    if (id.length > DeviceMaxIdLength) errors.tooLong(field, DeviceMaxIdLength);
  }
}

export function uniqueNames(errors: Errors, field: string, items: unknown[]): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const name = asRecord(item)['name'];
    if (typeof name !== 'string' || name === '') return;
    if (seen.has(name)) errors.duplicate(`${field}[${i}].name`, name);
    seen.add(name);
  });
}

export function objectMeta(errors: Errors, meta: Record<string, unknown>, namespaced: boolean): void {
  const name = meta['name'];
  if (typeof name !== 'string' || name === '')
    errors.required('metadata.name', 'name or generateName is required');
  else dnsSubdomain(errors, 'metadata.name', name);
  if (namespaced) dnsLabel(errors, 'metadata.namespace', meta['namespace']);
}

export function opaqueConfigs(errors: Errors, field: string, configs: unknown[]): void {
  if (configs.length > DeviceRequestsMaxSize) errors.tooMany(field, configs.length, DeviceRequestsMaxSize);
  configs.forEach((c, i) => {
    const opaque = asRecord(c)['opaque'];
    if (opaque === undefined) return;
    const o = asRecord(opaque);
    driverName(errors, `${field}[${i}].opaque.driver`, o['driver']);
    const size = JSON.stringify(o['parameters'] ?? null).length;
    if (o['parameters'] === undefined) errors.required(`${field}[${i}].opaque.parameters`);
    else if (size > OpaqueParametersMaxLength)
      errors.tooLong(`${field}[${i}].opaque.parameters`, OpaqueParametersMaxLength);
  });
}
