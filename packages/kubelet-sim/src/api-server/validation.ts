import type { StatusCause } from './api-errors';
import { validateDeviceStatuses } from './claim-device-status-validation';
import { celSelectors, validateClaimSpec } from './claim-spec-validation';
import { validateConsumesCounters, validateSharedCounters } from './counter-validation';
import {
  asArray,
  asRecord,
  dnsLabel,
  dnsSubdomain,
  driverName,
  Errors,
  objectMeta,
  opaqueConfigs,
  poolName,
  qualifiedName,
  quantityRe,
  semverRe,
  uniqueNames,
  type ValidationContext,
} from './field-errors';
import {
  DeviceAttributeMaxValueLength,
  DeviceRequestsMaxSize,
  ResourceClaimReservedForMaxSize,
  ResourceSliceMaxAttributesAndCapacitiesPerDevice,
  ResourceSliceMaxDevices,
  ResourceSliceMaxDevicesWithAdvancedFeatures,
} from './validation-limits';

export type { ValidationContext } from './field-errors';
export {
  DeviceAttributeMaxValueLength,
  DeviceMaxIdLength,
  DeviceRequestsMaxSize,
  DriverNameMaxLength,
  OpaqueParametersMaxLength,
  PoolNameMaxLength,
  ResourceClaimReservedForMaxSize,
  ResourceSliceMaxAttributesAndCapacitiesPerDevice,
  ResourceSliceMaxDevices,
  ResourceSliceMaxDevicesWithAdvancedFeatures,
} from './validation-limits';

/*
 * The resource.k8s.io/v1 validation limits, after kubernetes pkg/apis/resource/validation (read, not copied):
 * the same limits, field paths and messages for what kubelet-sim checks. CEL is compiled when the server has a
 * compiler (`validateCel`); taints, counters, binding conditions and request policies are checked only for
 * their sizes.
 */

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
  validateConsumesCounters(errors, `${field}.consumesCounters`, d['consumesCounters']);
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
  validateSharedCounters(errors, spec['sharedCounters']);
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

/** The problems of a ResourceClaim; on update the spec is immutable and only that is checked. */
export function validateResourceClaim(
  claim: Record<string, unknown>,
  old?: Record<string, unknown>,
  context: ValidationContext = {},
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
  validateClaimSpec(errors, spec, 'spec', context);
  return errors.causes;
}

/** The problems of a ResourceClaimTemplate: its metadata, and `spec.spec` as a claim's spec. */
export function validateResourceClaimTemplate(
  template: Record<string, unknown>,
  context: ValidationContext = {},
): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, asRecord(template['metadata']), true);
  validateClaimSpec(errors, asRecord(asRecord(template['spec'])['spec']), 'spec.spec', context);
  return errors.causes;
}

/** The problems of a ResourceClaim status update (allocation results, reservedFor and the devices' status). */
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
  validateDeviceStatuses(errors, status);
  return errors.causes;
}

/** The problems of a DeviceClass. */
export function validateDeviceClass(
  cls: Record<string, unknown>,
  context: ValidationContext = {},
): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, asRecord(cls['metadata']), false);
  const spec = asRecord(cls['spec']);
  const selectors = asArray(spec['selectors']);
  if (selectors.length > DeviceRequestsMaxSize)
    errors.tooMany('spec.selectors', selectors.length, DeviceRequestsMaxSize);
  celSelectors(errors, 'spec.selectors', selectors, context);
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
