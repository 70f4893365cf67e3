import {
  asArray,
  asRecord,
  dnsLabel,
  dnsSubdomain,
  type Errors,
  opaqueConfigs,
  qualifiedName,
  uniqueNames,
  type ValidationContext,
} from './field-errors';
import { DeviceRequestsMaxSize } from './validation-limits';

/*
 * A resource.k8s.io/v1 `ResourceClaimSpec` (of a claim or a claim template), after upstream's
 * validateDeviceClaim: requests with `exactly` or `firstAvailable`, their classes, selectors (CEL compiled when
 * the server has a compiler), allocation modes, counts and tolerations; constraints and configs that name
 * requests of the claim.
 */

/** Subrequests per `firstAvailable`. */
export const FirstAvailableDeviceRequestMaxSize = 8;

const allocationModes = ['All', 'ExactCount'];

/** Each `cel.expression` of `selectors` at `field`: required, and compiled when `context` has a compiler. */
export function celSelectors(
  errors: Errors,
  field: string,
  selectors: unknown[],
  context: ValidationContext,
): void {
  if (selectors.length > DeviceRequestsMaxSize)
    errors.tooMany(field, selectors.length, DeviceRequestsMaxSize);
  selectors.forEach((s, i) => {
    const path = `${field}[${i}].cel.expression`;
    const expression = asRecord(asRecord(s)['cel'])['expression'];
    if (typeof expression !== 'string' || expression.trim() === '') return errors.required(path);
    const message = context.validateCel?.(expression);
    if (message !== undefined) errors.invalid(path, expression, message);
  });
}

function tolerations(errors: Errors, field: string, list: unknown[]): void {
  list.forEach((t, i) => {
    const at = `${field}[${i}]`;
    const toleration = asRecord(t);
    const key = toleration['key'];
    if (typeof key === 'string' && key !== '') qualifiedName(errors, `${at}.key`, key);
    const operator = toleration['operator'] ?? 'Equal';
    if (operator !== 'Equal' && operator !== 'Exists')
      errors.notSupported(`${at}.operator`, operator, ['Equal', 'Exists']);
    if (operator === 'Exists' && (toleration['value'] ?? '') !== '') {
      errors.invalid(`${at}.operator`, toleration, "value must be empty when `operator` is 'Exists'");
    }
    if ((key ?? '') === '' && operator !== 'Exists') {
      errors.invalid(
        `${at}.operator`,
        operator,
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      );
    }
    const effect = toleration['effect'];
    if (effect !== undefined && effect !== '' && effect !== 'NoSchedule' && effect !== 'NoExecute') {
      errors.notSupported(`${at}.effect`, effect, ['NoExecute', 'NoSchedule']);
    }
  });
}

/** The class, selectors, mode, count and tolerations of an `exactly` request or a subrequest. */
function requestBody(
  errors: Errors,
  field: string,
  request: Record<string, unknown>,
  context: ValidationContext,
): void {
  dnsSubdomain(errors, `${field}.deviceClassName`, request['deviceClassName']);
  celSelectors(errors, `${field}.selectors`, asArray(request['selectors']), context);
  const mode = request['allocationMode'] ?? 'ExactCount';
  const count = request['count'];
  if (mode === 'ExactCount') {
    if (count !== undefined && (typeof count !== 'number' || count <= 0)) {
      errors.invalid(`${field}.count`, count, 'must be greater than zero');
    }
  } else if (mode === 'All') {
    if (count !== undefined && count !== 0) {
      errors.invalid(`${field}.count`, count, "must not be specified when allocationMode is 'All'");
    }
  } else errors.notSupported(`${field}.allocationMode`, mode, allocationModes);
  tolerations(errors, `${field}.tolerations`, asArray(request['tolerations']));
}

/** The names a constraint or config may refer to: each request, and `request/subrequest`. */
function requestRefs(requests: unknown[]): Set<string> {
  const refs = new Set<string>();
  for (const r of requests) {
    const request = asRecord(r);
    const name = String(request['name'] ?? '');
    refs.add(name);
    for (const sub of asArray(request['firstAvailable']))
      refs.add(`${name}/${String(asRecord(sub)['name'] ?? '')}`);
  }
  return refs;
}

function checkRefs(errors: Errors, field: string, names: unknown[], refs: Set<string>): void {
  names.forEach((n, i) => {
    if (typeof n !== 'string' || !refs.has(n)) {
      errors.invalid(
        `${field}[${i}]`,
        n,
        "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'",
      );
    }
  });
}

function request(errors: Errors, field: string, r: unknown, context: ValidationContext): void {
  const req = asRecord(r);
  dnsLabel(errors, `${field}.name`, req['name']);
  const kinds = ['exactly', 'firstAvailable'].filter((k) => req[k] !== undefined && req[k] !== null);
  if (kinds.length === 0) errors.required(field, 'exactly one of `exactly` or `firstAvailable` is required');
  else if (kinds.length > 1) {
    errors.invalid(
      field,
      null,
      'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set',
    );
  }
  if (req['exactly'] !== undefined && req['exactly'] !== null) {
    requestBody(errors, `${field}.exactly`, asRecord(req['exactly']), context);
  }
  const subrequests = asArray(req['firstAvailable']);
  if (req['firstAvailable'] !== undefined && subrequests.length === 0)
    errors.required(`${field}.firstAvailable`);
  if (subrequests.length > FirstAvailableDeviceRequestMaxSize) {
    errors.tooMany(`${field}.firstAvailable`, subrequests.length, FirstAvailableDeviceRequestMaxSize);
  }
  subrequests.forEach((sub, k) => {
    dnsLabel(errors, `${field}.firstAvailable[${k}].name`, asRecord(sub)['name']);
    requestBody(errors, `${field}.firstAvailable[${k}]`, asRecord(sub), context);
  });
  uniqueNames(errors, `${field}.firstAvailable`, subrequests);
}

/** The problems of a claim spec at `path` (`spec`, or `spec.spec` in a template). */
export function validateClaimSpec(
  errors: Errors,
  spec: Record<string, unknown>,
  path: string,
  context: ValidationContext,
): void {
  const devices = asRecord(spec['devices']);
  const field = `${path}.devices`;
  const requests = asArray(devices['requests']);
  if (requests.length > DeviceRequestsMaxSize)
    errors.tooMany(`${field}.requests`, requests.length, DeviceRequestsMaxSize);
  requests.forEach((r, i) => request(errors, `${field}.requests[${i}]`, r, context));
  uniqueNames(errors, `${field}.requests`, requests);
  const refs = requestRefs(requests);
  const constraints = asArray(devices['constraints']);
  if (constraints.length > DeviceRequestsMaxSize) {
    errors.tooMany(`${field}.constraints`, constraints.length, DeviceRequestsMaxSize);
  }
  constraints.forEach((c, i) => {
    const constraint = asRecord(c);
    const at = `${field}.constraints[${i}]`;
    checkRefs(errors, `${at}.requests`, asArray(constraint['requests']), refs);
    const set = ['matchAttribute', 'distinctAttribute'].filter((k) => constraint[k] !== undefined);
    if (set.length === 0)
      errors.required(at, 'exactly one of `matchAttribute` or `distinctAttribute` is required');
    else if (set.length > 1)
      errors.invalid(
        at,
        null,
        'exactly one of `matchAttribute` or `distinctAttribute` is required, but multiple fields are set',
      );
    for (const k of set) qualifiedName(errors, `${at}.${k}`, String(constraint[k] ?? ''));
  });
  const configs = asArray(devices['config']);
  configs.forEach((c, i) => {
    checkRefs(errors, `${field}.config[${i}].requests`, asArray(asRecord(c)['requests']), refs);
    if (asRecord(c)['opaque'] === undefined) errors.required(`${field}.config[${i}].opaque`);
  });
  opaqueConfigs(errors, `${field}.config`, configs);
}
