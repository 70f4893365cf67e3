import type { StatusCause } from './api-errors';
import { asArray, asRecord, dnsLabel, dnsSubdomain, Errors, objectMeta, uniqueNames } from './field-errors';

/*
 * Pods and Events, checked for what the DRA path reads, after upstream's pkg/apis/core/validation: containers
 * with a name and an image, pod resource claims naming exactly one source, and container claims naming a pod
 * claim.
 */

function podClaims(errors: Errors, claims: unknown[]): Set<string> {
  const names = new Set<string>();
  claims.forEach((c, i) => {
    const field = `spec.resourceClaims[${i}]`;
    const claim = asRecord(c);
    dnsLabel(errors, `${field}.name`, claim['name']);
    if (typeof claim['name'] === 'string') names.add(claim['name']);
    const sources = ['resourceClaimName', 'resourceClaimTemplateName'].filter(
      (k) => claim[k] !== undefined && claim[k] !== null && claim[k] !== '',
    );
    if (sources.length === 0) {
      errors.required(field, 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`');
    } else if (sources.length > 1) {
      errors.invalid(
        field,
        claim,
        'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be set',
      );
    }
    for (const k of sources) dnsSubdomain(errors, `${field}.${k}`, claim[k]);
  });
  uniqueNames(errors, 'spec.resourceClaims', claims);
  return names;
}

function containers(errors: Errors, field: string, list: unknown[], claims: Set<string>): void {
  list.forEach((c, i) => {
    const container = asRecord(c);
    const at = `${field}[${i}]`;
    dnsLabel(errors, `${at}.name`, container['name']);
    if (typeof container['image'] !== 'string' || container['image'].trim() === '')
      errors.required(`${at}.image`);
    const seen = new Set<string>();
    asArray(asRecord(container['resources'])['claims']).forEach((r, j) => {
      const ref = asRecord(r);
      const refField = `${at}.resources.claims[${j}]`;
      const name = ref['name'];
      if (typeof name !== 'string' || name === '') errors.required(`${refField}.name`);
      else if (!claims.has(name)) errors.notFound(`${refField}.name`, name);
      const request = ref['request'];
      if (request !== undefined && request !== '') dnsLabel(errors, `${refField}.request`, request);
      const key = `${String(name)}/${String(request ?? '')}`;
      if (seen.has(key)) errors.duplicate(refField, ref);
      seen.add(key);
    });
  });
  uniqueNames(errors, field, list);
}

/** The problems of a Pod. */
export function validatePod(pod: Record<string, unknown>): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, asRecord(pod['metadata']), true);
  const spec = asRecord(pod['spec']);
  const claims = podClaims(errors, asArray(spec['resourceClaims']));
  const list = asArray(spec['containers']);
  if (list.length === 0) errors.required('spec.containers');
  containers(errors, 'spec.containers', list, claims);
  containers(errors, 'spec.initContainers', asArray(spec['initContainers']), claims);
  return errors.causes;
}

/** The problems of a core/v1 Event: its metadata, what it is about, and its type. */
export function validateEvent(event: Record<string, unknown>): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, asRecord(event['metadata']), true);
  const involved = asRecord(event['involvedObject']);
  if (typeof involved['kind'] !== 'string' || involved['kind'] === '') errors.required('involvedObject.kind');
  const namespace = asRecord(event['metadata'])['namespace'];
  if (
    involved['namespace'] !== undefined &&
    involved['namespace'] !== '' &&
    involved['namespace'] !== namespace
  ) {
    errors.invalid('involvedObject.namespace', involved['namespace'], 'does not match event.namespace');
  }
  const type = event['type'];
  if (type !== undefined && type !== 'Normal' && type !== 'Warning')
    errors.notSupported('type', type, ['Normal', 'Warning']);
  return errors.causes;
}
