import type { parse } from '@bufbuild/cel';
import { overloads } from './cel-overloads';
import { assignable, bothNumeric, type CheckType, join, T, typeName } from './cel-type';

/** A parsed CEL expression node. */
export type CelExpr = ReturnType<typeof parse>['expr'];

/** A type error at an expression node. */
export class CheckError extends Error {
  constructor(
    message: string,
    readonly exprId: bigint,
  ) {
    super(message);
  }
}

const deviceFields: Readonly<Record<string, CheckType>> = {
  driver: T.string,
  allowMultipleAllocations: T.bool,
  attributes: T.map(T.string, T.map(T.string, T.dyn)),
  capacity: T.map(T.string, T.map(T.string, T.quantity)),
};

/** The variables of the DRA selector environment. */
const rootScope: ReadonlyMap<string, CheckType> = new Map([['device', T.device]]);

type Call = Extract<CelExpr['exprKind'], { case: 'callExpr' }>['value'];

const select = (e: CelExpr, operand: CheckType, field: string, testOnly: boolean): CheckType => {
  if (operand.k === 'kubernetes.DRADevice') {
    const t = deviceFields[field];
    if (t === undefined) throw new CheckError(`undefined field '${field}'`, e.id);
    return testOnly ? T.bool : t;
  }
  if (operand.k === 'map') return testOnly ? T.bool : operand.v;
  if (operand.k === 'dyn') return testOnly ? T.bool : T.dyn;
  throw new CheckError(`type '${typeName(operand)}' does not support field selection`, e.id);
};

const index = (e: CelExpr, operand: CheckType, key: CheckType): CheckType => {
  if (operand.k === 'map') return operand.v;
  if (operand.k === 'list' && assignable(key, T.int)) return operand.e;
  if (operand.k === 'dyn') return T.dyn;
  throw new CheckError(
    `found no matching overload for '_[_]' applied to '(${typeName(operand)}, ${typeName(key)})'`,
    e.id,
  );
};

/** Infers the static type of `expr` in the DRA device environment, as cel-go's checker would; throws CheckError. */
export function checkSelector(expr: CelExpr, hasFunction: (name: string) => boolean): CheckType {
  const scopes: Map<string, CheckType>[] = [];
  const lookup = (name: string): CheckType | undefined => {
    for (let i = scopes.length - 1; i >= 0; i--) {
      const found = scopes[i]?.get(name);
      if (found !== undefined) return found;
    }
    return rootScope.get(name);
  };
  const qualifiedName = (e: CelExpr): string | undefined => {
    if (e.exprKind.case === 'identExpr')
      return lookup(e.exprKind.value.name) ? undefined : e.exprKind.value.name;
    if (
      e.exprKind.case === 'selectExpr' &&
      !e.exprKind.value.testOnly &&
      e.exprKind.value.operand !== undefined
    ) {
      const head = qualifiedName(e.exprKind.value.operand);
      return head === undefined ? undefined : `${head}.${e.exprKind.value.field}`;
    }
    return undefined;
  };

  const resolve = (e: CelExpr, name: string, target: CheckType | undefined, args: CheckType[]): CheckType => {
    if (name === '_==_' || name === '_!=_') {
      const [a = T.dyn, b = T.dyn] = args;
      if (!assignable(a, b) && !bothNumeric(a, b) && a.k !== 'null_type' && b.k !== 'null_type')
        throw new CheckError(
          `found no matching overload for '${name}' applied to '(${typeName(a)}, ${typeName(b)})'`,
          e.id,
        );
      return T.bool;
    }
    if (name === '_?_:_') {
      const [cond = T.dyn, a = T.dyn, b = T.dyn] = args;
      if (!assignable(cond, T.bool) || (!assignable(a, b) && !bothNumeric(a, b)))
        throw new CheckError(
          `found no matching overload for '_?_:_' applied to '(${args.map(typeName).join(', ')})'`,
          e.id,
        );
      return a.k === 'dyn' ? b : a;
    }
    if (name === '_[_]') return index(e, args[0] ?? T.dyn, args[1] ?? T.dyn);
    const known = overloads[name];
    if (known === undefined) {
      if (hasFunction(name)) return T.dyn;
      throw new CheckError(`undeclared reference to '${name}' (in container '')`, e.id);
    }
    const fits = known.filter(
      (o) =>
        (o.target === undefined) === (target === undefined) &&
        (o.target === undefined || target === undefined || assignable(target, o.target)) &&
        o.args.length === args.length &&
        o.args.every((a, i) => assignable(args[i] ?? T.dyn, a)),
    );
    if (fits.length === 0) {
      const applied = `${target === undefined ? '' : `${typeName(target)}.`}(${args.map(typeName).join(', ')})`;
      throw new CheckError(`found no matching overload for '${name}' applied to '${applied}'`, e.id);
    }
    return fits.map((o) => o.result).reduce(join);
  };

  const call = (e: CelExpr, c: Call): CheckType => {
    const args = c.args.map(visit);
    if (c.target === undefined) return resolve(e, c.function, undefined, args);
    const qualified = qualifiedName(c.target);
    if (qualified !== undefined) return resolve(e, `${qualified}.${c.function}`, undefined, args);
    return resolve(e, c.function, visit(c.target), args);
  };

  const visit = (e: CelExpr): CheckType => {
    const kind = e.exprKind;
    switch (kind.case) {
      case 'constExpr':
        return constType(kind.value.constantKind.case);
      case 'identExpr': {
        const t = lookup(kind.value.name);
        if (t === undefined)
          throw new CheckError(`undeclared reference to '${kind.value.name}' (in container '')`, e.id);
        return t;
      }
      case 'selectExpr': {
        const operand = kind.value.operand;
        const qualified = operand === undefined ? undefined : qualifiedName(operand);
        if (qualified !== undefined)
          throw new CheckError(`undeclared reference to '${qualified}' (in container '')`, e.id);
        return select(
          e,
          operand === undefined ? T.dyn : visit(operand),
          kind.value.field,
          kind.value.testOnly,
        );
      }
      case 'callExpr':
        return call(e, kind.value);
      case 'listExpr':
        return T.list(kind.value.elements.length === 0 ? T.dyn : kind.value.elements.map(visit).reduce(join));
      case 'structExpr':
        if (kind.value.messageName !== '')
          throw new CheckError(`undeclared reference to '${kind.value.messageName}'`, e.id);
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') visit(entry.keyKind.value);
          if (entry.value !== undefined) visit(entry.value);
        }
        return T.map(T.dyn, T.dyn);
      case 'comprehensionExpr':
        return comprehension(kind.value);
      default:
        throw new CheckError('unsupported expression', e.id);
    }
  };

  const comprehension = (
    c: Extract<CelExpr['exprKind'], { case: 'comprehensionExpr' }>['value'],
  ): CheckType => {
    const range = c.iterRange === undefined ? T.dyn : visit(c.iterRange);
    const vars = new Map<string, CheckType>();
    const two = c.iterVar2 !== '';
    if (range.k === 'list') {
      vars.set(c.iterVar, two ? T.int : range.e);
      if (two) vars.set(c.iterVar2, range.e);
    } else if (range.k === 'map') {
      vars.set(c.iterVar, range.key);
      if (two) vars.set(c.iterVar2, range.v);
    } else {
      vars.set(c.iterVar, T.dyn);
      if (two) vars.set(c.iterVar2, T.dyn);
    }
    const accu = c.accuInit === undefined ? T.dyn : visit(c.accuInit);
    scopes.push(new Map([[c.accuVar, accu]]));
    scopes.push(vars);
    if (c.loopCondition !== undefined) visit(c.loopCondition);
    if (c.loopStep !== undefined) visit(c.loopStep);
    scopes.pop();
    const result = c.result === undefined ? T.dyn : visit(c.result);
    scopes.pop();
    return result;
  };

  return visit(expr);
}

const constType = (kind: string | undefined): CheckType => {
  switch (kind) {
    case 'boolValue':
      return T.bool;
    case 'int64Value':
      return T.int;
    case 'uint64Value':
      return T.uint;
    case 'doubleValue':
      return T.double;
    case 'stringValue':
      return T.string;
    case 'bytesValue':
      return T.bytes;
    default:
      return T.null;
  }
};
