import { celJson, compileAdmissionExpression, type AdmissionProgram } from './admission-cel';
import { admissionDenied } from './api-errors';
import { asArray, asRecord } from './field-errors';
import type { KubeObject, ResourceType } from './resource-types';

/** One write as admission sees it. */
export interface AdmissionRequest {
  readonly type: ResourceType;
  readonly operation: 'CREATE' | 'UPDATE';
  /** The object as it would be stored (`apiVersion` and `kind` set). */
  readonly object: KubeObject;
  readonly oldObject: KubeObject | undefined;
}

/** What admission reads: the stored policies and bindings. */
export type AdmissionObjects = (
  plural: 'validatingadmissionpolicies' | 'validatingadmissionpolicybindings',
) => readonly KubeObject[];

const matchesRule = (rule: Record<string, unknown>, request: AdmissionRequest): boolean => {
  const has = (field: string, value: string): boolean => {
    const list = asArray(rule[field]);
    return list.includes('*') || list.includes(value);
  };
  return (
    has('apiGroups', request.type.group) &&
    has('apiVersions', request.type.version) &&
    has('operations', request.operation) &&
    has('resources', request.type.plural)
  );
};

/**
 * kube-apiserver's ValidatingAdmissionPolicy plugin over the stored policies and bindings: for every binding whose
 * policy's `matchConstraints.resourceRules` match the write and whose `matchConditions` hold, the policy's
 * `variables` are evaluated in order and each validation must be true; the first that is not denies the write with
 * its `messageExpression` (else `message`, else `failed expression: …`) and its `reason` (default Invalid, 422).
 * An expression that fails to evaluate denies under `failurePolicy: Fail` (the default) and is skipped under Ignore.
 */
export function createAdmission(objects: AdmissionObjects): (request: AdmissionRequest) => void {
  // Compiled once per expression text (a policy's expressions are compiled at its write already).
  const cache = new Map<string, AdmissionProgram>();
  const compiled = (expression: string): AdmissionProgram => {
    let run = cache.get(expression);
    if (run === undefined) cache.set(expression, (run = compileAdmissionExpression(expression)));
    return run;
  };
  return (request) => {
    const policies = objects('validatingadmissionpolicies');
    if (policies.length === 0) return;
    for (const binding of objects('validatingadmissionpolicybindings')) {
      const bindingSpec = asRecord(binding['spec']);
      const policy = policies.find((p) => p.metadata.name === bindingSpec['policyName']);
      if (policy === undefined || !asArray(bindingSpec['validationActions']).includes('Deny')) continue;
      const denial = evaluatePolicy(policy, request, compiled);
      if (denial !== undefined)
        throw admissionDenied(request.type.plural, request.type.group, request.object.metadata.name ?? '', {
          policy: policy.metadata.name ?? '',
          binding: binding.metadata.name ?? '',
          ...denial,
        });
    }
  };
}

/** Why `policy` denies the request, or undefined when it admits it (or does not apply). */
function evaluatePolicy(
  policy: KubeObject,
  request: AdmissionRequest,
  compiled: (expression: string) => AdmissionProgram,
): { message: string; reason: string } | undefined {
  const spec = asRecord(policy['spec']);
  const rules = asArray(asRecord(spec['matchConstraints'])['resourceRules']).map(asRecord);
  if (!rules.some((rule) => matchesRule(rule, request))) return undefined;
  const failClosed = (spec['failurePolicy'] ?? 'Fail') === 'Fail';
  const variables: Record<string, unknown> = {};
  const activation = {
    object: celJson(request.object),
    oldObject: request.oldObject === undefined ? null : celJson(request.oldObject),
    request: celJson({
      operation: request.operation,
      kind: { group: request.type.group, version: request.type.version, kind: request.type.kind },
      resource: { group: request.type.group, version: request.type.version, resource: request.type.plural },
      name: request.object.metadata.name ?? '',
      namespace: request.object.metadata.namespace ?? '',
      userInfo: { username: '', groups: [] },
    }),
    params: null,
    variables,
  };
  const evaluate = (expression: string): unknown => compiled(expression)(activation);
  const failed = (what: string, error: Error) =>
    failClosed ? { message: `${what}: ${error.message}`, reason: 'Invalid' } : undefined;
  for (const condition of asArray(spec['matchConditions']).map(asRecord)) {
    const result = evaluate(String(condition['expression']));
    if (result instanceof Error) return failed(`matchCondition ${String(condition['name'])}`, result);
    if (result !== true) return undefined;
  }
  for (const variable of asArray(spec['variables']).map(asRecord)) {
    const result = evaluate(String(variable['expression']));
    if (result instanceof Error) return failed(`variable ${String(variable['name'])}`, result);
    variables[String(variable['name'])] = result;
  }
  for (const validation of asArray(spec['validations']).map(asRecord)) {
    const expression = String(validation['expression']);
    const result = evaluate(expression);
    if (result instanceof Error) return failed(`expression '${expression}' resulted in error`, result);
    if (result === true) continue;
    const reason = typeof validation['reason'] === 'string' ? validation['reason'] : 'Invalid';
    const fromExpression =
      typeof validation['messageExpression'] === 'string'
        ? evaluate(validation['messageExpression'])
        : undefined;
    const message =
      typeof fromExpression === 'string' && fromExpression.trim() !== ''
        ? fromExpression
        : typeof validation['message'] === 'string'
          ? validation['message']
          : `failed expression: ${expression}`;
    return { message, reason };
  }
  return undefined;
}
