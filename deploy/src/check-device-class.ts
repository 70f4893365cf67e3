import type { KubeObject } from './kube-object';

// kubernetes-models 4.5.1 carries the v1.33 schema, which has no resource.k8s.io/v1: DeviceClasses are checked
// here against the v1 type and its validation (pkg/apis/resource/validation), as far as kdp's classes use it.

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** `resource.k8s.io/v1` limits: selectors and configs per class, the bytes of one CEL expression. */
const MAX_SELECTORS = 32;
const MAX_CONFIGS = 32;
const MAX_CEL_BYTES = 10 * 1024;
const SPEC_FIELDS = new Set(['selectors', 'config', 'extendedResourceName']);

/** Whether a name is a valid extended resource name (`nvidia.com/gpu`: domain-qualified, not `*kubernetes.io/`). */
function extendedResourceProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'extendedResourceName must be a string';
  const [domain, local, ...rest] = name.split('/');
  if (domain === undefined || local === undefined || rest.length > 0)
    return `extendedResourceName ${name} must be DOMAIN/NAME`;
  if (!DNS_SUBDOMAIN.test(domain) || domain.length > 253)
    return `extendedResourceName ${name}: ${domain} is no DNS subdomain`;
  if (domain === 'kubernetes.io' || domain.endsWith('.kubernetes.io'))
    return `extendedResourceName ${name} may not be in the kubernetes.io domain`;
  if (!QUALIFIED_NAME.test(local) || local.length > 63)
    return `extendedResourceName ${name}: ${local} is no qualified name`;
  if (local.startsWith('requests.')) return `extendedResourceName ${name} may not start with requests.`;
  return undefined;
}

/**
 * The problems of a `resource.k8s.io/v1` DeviceClass (empty: valid): the name a DNS subdomain, `spec` with only
 * `selectors` (each exactly one non-empty `cel.expression` within 10 KiB, at most 32), `config` (each an `opaque`
 * with a driver and parameters, at most 32) and `extendedResourceName`; unknown fields are problems, as strict
 * field validation makes them.
 */
export function checkDeviceClass(object: KubeObject): string[] {
  const problems: string[] = [];
  const name = object.metadata.name;
  if (object.apiVersion !== 'resource.k8s.io/v1' || object.kind !== 'DeviceClass')
    return [`${object.apiVersion} ${object.kind} is not a resource.k8s.io/v1 DeviceClass`];
  if (!DNS_SUBDOMAIN.test(name) || name.length > 253) problems.push(`name ${name} is no DNS subdomain`);
  for (const field of Object.keys(object))
    if (!['apiVersion', 'kind', 'metadata', 'spec'].includes(field)) problems.push(`unknown field ${field}`);
  const spec = object['spec'];
  if (typeof spec !== 'object' || spec === null) return [...problems, 'spec is required'];
  const fields = spec as Record<string, unknown>;
  for (const field of Object.keys(fields))
    if (!SPEC_FIELDS.has(field)) problems.push(`unknown field spec.${field}`);
  const selectors = fields['selectors'] ?? [];
  if (!Array.isArray(selectors)) problems.push('spec.selectors must be a list');
  else {
    if (selectors.length > MAX_SELECTORS) problems.push(`more than ${MAX_SELECTORS} selectors`);
    selectors.forEach((selector: unknown, i) => {
      const where = `spec.selectors[${i}]`;
      const cel = (selector as { cel?: unknown } | null)?.cel as { expression?: unknown } | undefined;
      if (
        JSON.stringify(Object.keys(selector ?? {})) !== '["cel"]' ||
        typeof cel !== 'object' ||
        cel === null
      )
        problems.push(`${where} must hold exactly cel`);
      else if (JSON.stringify(Object.keys(cel)) !== '["expression"]' || typeof cel.expression !== 'string')
        problems.push(`${where}.cel must hold exactly expression, a string`);
      else if (cel.expression.trim() === '') problems.push(`${where}.cel.expression is empty`);
      else if (Buffer.byteLength(cel.expression) > MAX_CEL_BYTES)
        problems.push(`${where}.cel.expression is longer than ${MAX_CEL_BYTES} bytes`);
    });
  }
  const configs = fields['config'] ?? [];
  if (!Array.isArray(configs)) problems.push('spec.config must be a list');
  else {
    if (configs.length > MAX_CONFIGS) problems.push(`more than ${MAX_CONFIGS} configs`);
    configs.forEach((config: unknown, i) => {
      const opaque = (config as { opaque?: { driver?: unknown; parameters?: unknown } } | null)?.opaque;
      if (typeof opaque?.driver !== 'string' || typeof opaque.parameters !== 'object')
        problems.push(`spec.config[${i}] must be opaque with a driver and parameters`);
    });
  }
  if ('extendedResourceName' in fields) {
    const problem = extendedResourceProblem(fields['extendedResourceName']);
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}
