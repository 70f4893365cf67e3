import type { StatusCause } from './api-errors';

/*
 * The resource.k8s.io/v1 validation limits, after kubernetes pkg/apis/resource/validation (read, not copied):
 * the same limits, field paths and messages for what kubelet-sim checks. CEL, taints, counters, binding
 * conditions and request policies are checked only for their sizes.
 */

/** Devices per ResourceSlice. */
export const ResourceSliceMaxDevices = 128;
/** Devices per ResourceSlice when a device has taints or consumes counters. */
export const ResourceSliceMaxDevicesWithAdvancedFeatures = 64;
/** Attributes plus capacities per device. */
export const ResourceSliceMaxAttributesAndCapacitiesPerDevice = 32;
/** Length of a string or version attribute value. */
export const DeviceAttributeMaxValueLength = 64;
/** Length of a DRA driver name (and of an attribute's domain). */
export const DriverNameMaxLength = 63;
/** Length of an attribute's identifier after the domain. */
export const DeviceMaxIdLength = 32;
/** Length of a pool name. */
export const PoolNameMaxLength = 253;
/** Requests per claim, results per allocation, selectors and configs per class. */
export const DeviceRequestsMaxSize = 32;
/** Consumers in `status.reservedFor`. */
export const ResourceClaimReservedForMaxSize = 256;
/** Opaque parameters per config, in bytes. */
export const OpaqueParametersMaxLength = 10 * 1024;

const dns1123LabelRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123SubdomainRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const cIdentifierRe = /^[A-Za-z_][A-Za-z0-9_]*$/;
const semverRe =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$/;
const quantityRe = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?\d+)?$/;

const labelMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const cIdentifierMessage =
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";

/** Collects field problems with the apimachinery `field.Error` wording. */
class Errors {
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
}

function goValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const asRecord = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function dnsLabel(errors: Errors, field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return errors.required(field);
  if (value.length > 63) errors.invalid(field, value, 'must be no more than 63 characters');
  if (!dns1123LabelRe.test(value)) errors.invalid(field, value, labelMessage);
}

function dnsSubdomain(errors: Errors, field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return errors.required(field);
  if (value.length > 253) errors.invalid(field, value, 'must be no more than 253 characters');
  if (!dns1123SubdomainRe.test(value)) errors.invalid(field, value, subdomainMessage);
}

/** A DRA driver name: the CSI driver name rules (required, ≤ 63, a DNS subdomain after lower-casing). */
function driverName(errors: Errors, field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return errors.required(field);
  if (value.length > DriverNameMaxLength) errors.tooLong(field, DriverNameMaxLength);
  if (!dns1123SubdomainRe.test(value.toLowerCase())) errors.invalid(field, value, subdomainMessage);
}

function poolName(errors: Errors, field: string, value: unknown): void {
  if (typeof value !== 'string' || value === '') return errors.required(field);
  if (value.length > PoolNameMaxLength) errors.tooLong(field, PoolNameMaxLength);
  for (const part of value.split('/')) {
    if (part === '' || !dns1123SubdomainRe.test(part)) errors.invalid(field, part, subdomainMessage);
  }
}

/** An attribute or capacity name: `[domain/]id`, domain a DNS subdomain ≤ 63, id a C identifier ≤ 32. */
function qualifiedName(errors: Errors, field: string, name: string): void {
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

function attribute(errors: Errors, field: string, value: unknown): void {
  const attr = asRecord(value);
  const set = ['bool', 'int', 'string', 'version', 'bools', 'ints', 'strings', 'versions'].filter(
    (k) => attr[k] !== undefined && attr[k] !== null,
  );
  if (typeof attr['string'] === 'string' && attr['string'].length > DeviceAttributeMaxValueLength) {
    errors.tooLong(`${field}.string`, DeviceAttributeMaxValueLength);
  }
  if (typeof attr['version'] === 'string') {
    if (!semverRe.test(attr['version'])) {
      errors.invalid(
        `${field}.version`,
        attr['version'],
        'must be a string compatible with semver.org spec 2.0.0',
      );
    }
    if (attr['version'].length > DeviceAttributeMaxValueLength) {
      errors.tooLong(`${field}.version`, DeviceAttributeMaxValueLength);
    }
  }
  asArray(attr['strings']).forEach((s, i) => {
    if (typeof s === 'string' && s.length > DeviceAttributeMaxValueLength) {
      errors.tooLong(`${field}.strings[${i}]`, DeviceAttributeMaxValueLength);
    }
  });
  if (set.length !== 1)
    errors.invalid(field, set.length === 0 ? '' : attr, 'exactly one value must be specified');
}

function capacity(errors: Errors, field: string, value: unknown): void {
  const cap = asRecord(value);
  const quantity = cap['value'];
  if (quantity === undefined) return errors.required(`${field}.value`);
  if (!quantityRe.test(String(quantity))) {
    errors.invalid(
      `${field}.value`,
      quantity,
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  }
  if (cap['requestPolicy'] !== undefined) {
    // Consumable capacity needs allowMultipleAllocations; checked by the caller.
  }
}

function device(errors: Errors, field: string, value: unknown, perDeviceNodeSelection: boolean): void {
  const d = asRecord(value);
  dnsLabel(errors, `${field}.name`, d['name']);
  const attributes = asRecord(d['attributes']);
  const capacities = asRecord(d['capacity']);
  const total = Object.keys(attributes).length + Object.keys(capacities).length;
  if (total > ResourceSliceMaxAttributesAndCapacitiesPerDevice) {
    errors.invalid(
      field,
      total,
      `the total number of attributes and capacities must not exceed ${ResourceSliceMaxAttributesAndCapacitiesPerDevice}`,
    );
  }
  for (const [name, attr] of Object.entries(attributes)) {
    qualifiedName(errors, `${field}.attributes[${name}]`, name);
    attribute(errors, `${field}.attributes[${name}]`, attr);
  }
  const multi = d['allowMultipleAllocations'] === true;
  for (const [name, cap] of Object.entries(capacities)) {
    qualifiedName(errors, `${field}.capacity[${name}]`, name);
    capacity(errors, `${field}.capacity[${name}]`, cap);
    if (!multi && asRecord(cap)['requestPolicy'] !== undefined) {
      errors.forbidden(`${field}.capacity[${name}].requestPolicy`, 'allowMultipleAllocations must be true');
    }
  }
  const nodeFields = ['nodeName', 'nodeSelector', 'allNodes'].filter(
    (k) => d[k] !== undefined && d[k] !== null,
  );
  if (perDeviceNodeSelection) {
    if (nodeFields.length !== 1) {
      const detail =
        'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec';
      if (nodeFields.length === 0) errors.required(field, detail);
      else errors.invalid(field, `{${nodeFields.map((f) => `\`${f}\``).join(', ')}}`, detail);
    }
  } else if (nodeFields.length > 0) {
    errors.invalid(
      field,
      null,
      '`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec',
    );
  }
  const taints = asArray(d['taints']);
  if (taints.length > 16) errors.tooMany(`${field}.taints`, taints.length, 16);
}

function uniqueNames(errors: Errors, field: string, items: unknown[]): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const name = asRecord(item)['name'];
    if (typeof name !== 'string' || name === '') return;
    if (seen.has(name)) errors.duplicate(`${field}[${i}].name`, name);
    seen.add(name);
  });
}

function objectMeta(errors: Errors, meta: Record<string, unknown>, namespaced: boolean): void {
  const name = meta['name'];
  if (typeof name !== 'string' || name === '')
    errors.required('metadata.name', 'name or generateName is required');
  else dnsSubdomain(errors, 'metadata.name', name);
  if (namespaced) dnsLabel(errors, 'metadata.namespace', meta['namespace']);
}

/** The problems of a ResourceSlice (create or update, `old` for the latter), as 422 causes. */
export function validateResourceSlice(
  slice: Record<string, unknown>,
  old?: Record<string, unknown>,
): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, asRecord(slice['metadata']), false);
  const spec = asRecord(slice['spec']);
  driverName(errors, 'spec.driver', spec['driver']);
  const pool = asRecord(spec['pool']);
  poolName(errors, 'spec.pool.name', pool['name']);
  const count = pool['resourceSliceCount'];
  if (typeof count !== 'number' || count <= 0) {
    errors.invalid('spec.pool.resourceSliceCount', count ?? 0, 'must be greater than zero');
  }
  const generation = pool['generation'] ?? 0;
  if (typeof generation !== 'number' || generation < 0) {
    errors.invalid('spec.pool.generation', generation, 'must be greater than or equal to zero');
  }
  const set: string[] = [];
  if (typeof spec['nodeName'] === 'string' && spec['nodeName'] !== '') {
    set.push('`nodeName`');
    dnsSubdomain(errors, 'spec.nodeName', spec['nodeName']);
  }
  if (spec['nodeSelector'] !== undefined && spec['nodeSelector'] !== null) set.push('`nodeSelector`');
  if (spec['allNodes'] !== undefined && spec['allNodes'] !== null) {
    if (spec['allNodes'] === true) set.push('`allNodes`');
    else errors.invalid('spec.allNodes', spec['allNodes'], 'must be either unset or set to true');
  }
  const perDevice = spec['perDeviceNodeSelection'];
  if (perDevice !== undefined && perDevice !== null) {
    if (perDevice === true) set.push('`perDeviceNodeSelection`');
    else errors.invalid('spec.perDeviceNodeSelection', perDevice, 'must be either unset or set to true');
  }
  if (set.length === 0) {
    errors.required(
      'spec',
      'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required',
    );
  } else if (set.length > 1) {
    errors.invalid(
      'spec',
      `{${set.join(', ')}}`,
      'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set',
    );
  }
  if (old !== undefined) {
    const oldSpec = asRecord(old['spec']);
    if ((oldSpec['nodeName'] ?? '') !== (spec['nodeName'] ?? '')) {
      errors.invalid('spec.nodeName', spec['nodeName'] ?? '', 'field is immutable');
    }
    if (oldSpec['driver'] !== spec['driver'])
      errors.invalid('spec.driver', spec['driver'] ?? '', 'field is immutable');
  }
  if (spec['sharedCounters'] !== undefined && spec['devices'] !== undefined) {
    errors.invalid('spec', '', 'only one of `sharedCounters` or `devices` is allowed');
  }
  const devices = asArray(spec['devices']);
  const advanced = devices.some(
    (d) => asArray(asRecord(d)['taints']).length > 0 || asArray(asRecord(d)['consumesCounters']).length > 0,
  );
  const max = advanced ? ResourceSliceMaxDevicesWithAdvancedFeatures : ResourceSliceMaxDevices;
  if (devices.length > max) errors.tooMany('spec.devices', devices.length, max);
  devices.forEach((d, i) => device(errors, `spec.devices[${i}]`, d, perDevice === true));
  uniqueNames(errors, 'spec.devices', devices);
  return errors.causes;
}

function opaqueConfigs(errors: Errors, field: string, configs: unknown[]): void {
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

/** The problems of a ResourceClaim; on update the spec is immutable and only that is checked. */
export function validateResourceClaim(
  claim: Record<string, unknown>,
  old?: Record<string, unknown>,
): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, asRecord(claim['metadata']), true);
  const spec = asRecord(claim['spec']);
  if (old !== undefined) {
    if (JSON.stringify(spec) !== JSON.stringify(asRecord(old['spec']))) {
      errors.invalid('spec', spec, 'field is immutable');
    }
    return errors.causes;
  }
  const devices = asRecord(spec['devices']);
  const requests = asArray(devices['requests']);
  if (requests.length > DeviceRequestsMaxSize)
    errors.tooMany('spec.devices.requests', requests.length, DeviceRequestsMaxSize);
  requests.forEach((r, i) => {
    const request = asRecord(r);
    dnsLabel(errors, `spec.devices.requests[${i}].name`, request['name']);
    const kinds = ['exactly', 'firstAvailable'].filter((k) => request[k] !== undefined);
    if (kinds.length === 0)
      errors.required(
        `spec.devices.requests[${i}]`,
        'exactly one of `exactly` or `firstAvailable` is required',
      );
    else if (kinds.length > 1) {
      errors.invalid(
        `spec.devices.requests[${i}]`,
        null,
        'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set',
      );
    }
    const exactly = request['exactly'];
    if (exactly !== undefined)
      dnsSubdomain(
        errors,
        `spec.devices.requests[${i}].exactly.deviceClassName`,
        asRecord(exactly)['deviceClassName'],
      );
  });
  uniqueNames(errors, 'spec.devices.requests', requests);
  opaqueConfigs(errors, 'spec.devices.config', asArray(devices['config']));
  return errors.causes;
}

/** The problems of a ResourceClaim status update (allocation results and reservedFor). */
export function validateResourceClaimStatus(claim: Record<string, unknown>): StatusCause[] {
  const errors = new Errors();
  const status = asRecord(claim['status']);
  const reservedFor = asArray(status['reservedFor']);
  if (reservedFor.length > ResourceClaimReservedForMaxSize) {
    errors.tooMany('status.reservedFor', reservedFor.length, ResourceClaimReservedForMaxSize);
  }
  const seen = new Set<string>();
  reservedFor.forEach((r, i) => {
    const ref = asRecord(r);
    for (const key of ['resource', 'name', 'uid']) {
      if (typeof ref[key] !== 'string' || ref[key] === '') errors.required(`status.reservedFor[${i}].${key}`);
    }
    const uid = String(ref['uid'] ?? '');
    if (uid !== '' && seen.has(uid)) errors.duplicate(`status.reservedFor[${i}].uid`, uid);
    seen.add(uid);
  });
  const allocation = status['allocation'];
  if (allocation !== undefined && allocation !== null) {
    const deviceResults = asRecord(asRecord(allocation)['devices']);
    const results = asArray(deviceResults['results']);
    if (results.length > DeviceRequestsMaxSize)
      errors.tooMany('status.allocation.devices.results', results.length, DeviceRequestsMaxSize);
    results.forEach((r, i) => {
      const result = asRecord(r);
      const field = `status.allocation.devices.results[${i}]`;
      if (typeof result['request'] !== 'string' || result['request'] === '')
        errors.required(`${field}.request`);
      driverName(errors, `${field}.driver`, result['driver']);
      poolName(errors, `${field}.pool`, result['pool']);
      dnsLabel(errors, `${field}.device`, result['device']);
    });
    opaqueConfigs(errors, 'status.allocation.devices.config', asArray(deviceResults['config']));
  }
  return errors.causes;
}

/** The problems of a DeviceClass. */
export function validateDeviceClass(cls: Record<string, unknown>): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, asRecord(cls['metadata']), false);
  const spec = asRecord(cls['spec']);
  const selectors = asArray(spec['selectors']);
  if (selectors.length > DeviceRequestsMaxSize)
    errors.tooMany('spec.selectors', selectors.length, DeviceRequestsMaxSize);
  selectors.forEach((s, i) => {
    const expression = asRecord(asRecord(s)['cel'])['expression'];
    if (typeof expression !== 'string' || expression.trim() === '')
      errors.required(`spec.selectors[${i}].cel.expression`);
  });
  opaqueConfigs(errors, 'spec.config', asArray(spec['config']));
  return errors.causes;
}

/** The problems of a Node (only its name: kubelet-sim stores Nodes for `get` and `list`). */
export function validateNode(node: Record<string, unknown>): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, asRecord(node['metadata']), false);
  return errors.causes;
}

/** Checks only an object's metadata (name, namespace when `namespaced`): kinds whose spec is not validated yet. */
export function validateObjectMeta(object: Record<string, unknown>, namespaced: boolean): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, asRecord(object['metadata']), namespaced);
  return errors.causes;
}
