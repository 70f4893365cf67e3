import { celEnv, celType, isCelError, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { expandBindings } from './cel-bind';
import { CheckError, checkSelector } from './cel-checker';
import { kubernetesCelFunctions } from './cel-library';
import { typeName } from './cel-type';
import { deviceVariable } from './device-input';
import type { DeviceSelector, DeviceSelectorCompiler } from './device-selector-types';

export type { CompileResult, DeviceSelector, DeviceSelectorCompiler } from './device-selector-types';

/** cel-go's issue layout: `ERROR: <input>:line:col: message`, the line and a caret under the column. */
function issue(expression: string, offset: number, message: string): string {
  const before = expression.slice(0, offset);
  const line = before.split('\n').length;
  const start = before.lastIndexOf('\n') + 1;
  const text = expression.slice(start).split('\n')[0] ?? '';
  const col = offset - start;
  return `ERROR: <input>:${line}:${col + 1}: ${message}\n | ${text}\n | ${'.'.repeat(col)}^`;
}

/** cel-go's wording for the runtime errors a selector meets most (a missing key). */
const runtimeMessage = (message: string): string => message.replace(/^field not found: /, 'no such key: ');

/**
 * Creates the compiler of DRA device selectors: CEL with the `device` variable (`driver`, `attributes`,
 * `capacity`, `allowMultipleAllocations`), the Kubernetes semver and quantity libraries, the strings extension and
 * `cel.bind`. Messages follow kube-apiserver's ("compilation failed: ERROR: …", "must evaluate to bool …").
 */
export function createDeviceSelectorCompiler(): DeviceSelectorCompiler {
  const env = celEnv({ funcs: [...strings, ...kubernetesCelFunctions()] });
  const hasFunction = (name: string): boolean => env.funcs.find(name) !== undefined;
  return {
    compile(expression) {
      let parsed: ReturnType<typeof parse>;
      try {
        parsed = parse(expression);
      } catch (err) {
        const e = err as Error & { location?: { offset?: number } };
        const raw = (e as { rawMessage?: string }).rawMessage ?? e.message;
        return {
          ok: false,
          message: `compilation failed: ${issue(expression, e.location?.offset ?? 0, `Syntax error: ${raw}`)}`,
        };
      }
      expandBindings(parsed.expr);
      try {
        const type = checkSelector(parsed.expr, hasFunction);
        if (type.k !== 'bool' && type.k !== 'dyn')
          return { ok: false, message: `must evaluate to bool or the unknown type, not ${typeName(type)}` };
      } catch (err) {
        if (!(err instanceof CheckError)) throw err;
        const offset = parsed.sourceInfo?.positions[String(err.exprId) as never] ?? 0;
        return {
          ok: false,
          message: `compilation failed: ${issue(expression, Number(offset), err.message)}`,
        };
      }
      const run = plan(env, parsed);
      const selector: DeviceSelector = {
        expression,
        matches(device) {
          const result = run({ device: deviceVariable(device) });
          if (isCelError(result)) throw new Error(runtimeMessage(result.message));
          if (typeof result !== 'boolean')
            throw new Error(`CEL result of type ${celType(result).name} could not be converted to bool`);
          return result;
        },
      };
      return { ok: true, selector };
    },
  };
}
