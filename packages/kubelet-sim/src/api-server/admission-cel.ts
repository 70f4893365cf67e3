import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { expandBindings } from '../scheduler/cel/cel-bind';
import { kubernetesCelFunctions } from '../scheduler/cel/cel-library';

/** A compiled admission expression: its value for an activation, or an Error when evaluation fails. */
export type AdmissionProgram = (activation: Readonly<Record<string, unknown>>) => unknown;

const env = celEnv({ funcs: [...strings, ...kubernetesCelFunctions()] });

/**
 * Compiles a ValidatingAdmissionPolicy expression with the CEL the scheduler uses (@bufbuild/cel with the strings
 * extension, Kubernetes' quantity and semver libraries and `cel.bind`); throws a syntax error's message. Optional
 * syntax (`?.`, `[?`) is not supported by @bufbuild/cel.
 */
export function compileAdmissionExpression(expression: string): AdmissionProgram {
  const parsed = parse(expression);
  expandBindings(parsed.expr);
  const run = plan(env, parsed);
  return (activation) => {
    const result = run(activation as never);
    return isCelError(result) ? new Error(result.message) : result;
  };
}

/** A JSON value as kube-apiserver hands it to CEL: integral numbers as `int`, others as they are. */
export function celJson(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(celJson);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celJson(v)]));
  return value;
}
