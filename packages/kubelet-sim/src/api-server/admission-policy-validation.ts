import { compileAdmissionExpression } from './admission-cel';
import type { StatusCause } from './api-errors';
import { asArray, asRecord, Errors, objectMeta } from './field-errors';
import type { KubeObject } from './kube-object';

/** Fields of a policy or binding spec that kubelet-sim's admission does not evaluate: refused, never ignored. */
const unsupportedPolicyFields = ['paramKind', 'auditAnnotations'];
const unsupportedConstraints = ['namespaceSelector', 'objectSelector', 'excludeResourceRules', 'matchPolicy'];

function compiles(errors: Errors, field: string, expression: unknown): void {
  if (typeof expression !== 'string' || expression.trim() === '') return errors.required(field);
  try {
    compileAdmissionExpression(expression);
  } catch (error) {
    errors.invalid(field, expression, `compilation failed: ${(error as Error).message}`);
  }
}

/**
 * A `ValidatingAdmissionPolicy` (admissionregistration.k8s.io/v1) as far as kubelet-sim evaluates it: resource
 * rules, match conditions, variables and validations, each expression compiled. What it would not evaluate
 * (params, selectors, audit annotations) is refused rather than ignored.
 */
export function validateAdmissionPolicy(object: KubeObject): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, object.metadata as Record<string, unknown>, false);
  const spec = asRecord(object['spec']);
  for (const key of unsupportedPolicyFields)
    if (spec[key] !== undefined) errors.forbidden(`spec.${key}`, 'not supported by kubelet-sim');
  const constraints = asRecord(spec['matchConstraints']);
  for (const key of unsupportedConstraints)
    if (constraints[key] !== undefined)
      errors.forbidden(`spec.matchConstraints.${key}`, 'not supported by kubelet-sim');
  if (asArray(constraints['resourceRules']).length === 0)
    errors.required('spec.matchConstraints.resourceRules');
  const failurePolicy = spec['failurePolicy'] ?? 'Fail';
  if (failurePolicy !== 'Fail' && failurePolicy !== 'Ignore')
    errors.notSupported('spec.failurePolicy', failurePolicy, ['Fail', 'Ignore']);
  asArray(spec['matchConditions']).forEach((c, i) =>
    compiles(errors, `spec.matchConditions[${i}].expression`, asRecord(c)['expression']),
  );
  asArray(spec['variables']).forEach((v, i) =>
    compiles(errors, `spec.variables[${i}].expression`, asRecord(v)['expression']),
  );
  const validations = asArray(spec['validations']);
  if (validations.length === 0) errors.required('spec.validations');
  validations.forEach((v, i) => {
    const validation = asRecord(v);
    compiles(errors, `spec.validations[${i}].expression`, validation['expression']);
    if (validation['messageExpression'] !== undefined)
      compiles(errors, `spec.validations[${i}].messageExpression`, validation['messageExpression']);
  });
  return errors.causes;
}

/** A `ValidatingAdmissionPolicyBinding`: a policy name and `validationActions: [Deny]` (no params, no selectors). */
export function validateAdmissionPolicyBinding(object: KubeObject): StatusCause[] {
  const errors = new Errors();
  objectMeta(errors, object.metadata as Record<string, unknown>, false);
  const spec = asRecord(object['spec']);
  if (typeof spec['policyName'] !== 'string' || spec['policyName'] === '') errors.required('spec.policyName');
  for (const key of ['paramRef', 'matchResources'])
    if (spec[key] !== undefined) errors.forbidden(`spec.${key}`, 'not supported by kubelet-sim');
  const actions = asArray(spec['validationActions']);
  if (actions.length === 0) errors.required('spec.validationActions');
  actions.forEach((action, i) => {
    if (action !== 'Deny') errors.notSupported(`spec.validationActions[${i}]`, action, ['Deny']);
  });
  return errors.causes;
}
