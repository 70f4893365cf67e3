import type { CelExpr } from './cel-checker';

type Kind = CelExpr['exprKind'];

const children = (e: CelExpr): CelExpr[] => {
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr':
      return k.value.operand === undefined ? [] : [k.value.operand];
    case 'callExpr':
      return [...(k.value.target === undefined ? [] : [k.value.target]), ...k.value.args];
    case 'listExpr':
      return k.value.elements;
    case 'structExpr':
      return k.value.entries.flatMap((entry) => [
        ...(entry.keyKind.case === 'mapKey' ? [entry.keyKind.value] : []),
        ...(entry.value === undefined ? [] : [entry.value]),
      ]);
    case 'comprehensionExpr': {
      const c = k.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].filter(
        (x): x is CelExpr => x !== undefined,
      );
    }
    default:
      return [];
  }
};

const isIdent = (e: CelExpr | undefined, name?: string): e is CelExpr =>
  e?.exprKind.case === 'identExpr' && (name === undefined || e.exprKind.value.name === name);

/**
 * Expands `cel.bind(name, init, body)` (cel-go's Bindings extension, which DRA enables) in place into the
 * comprehension cel-go builds for it: no iterations, `name` the accumulator bound to `init`, `body` the result.
 */
export function expandBindings(e: CelExpr): void {
  for (const child of children(e)) expandBindings(child);
  const k = e.exprKind;
  if (k.case !== 'callExpr' || k.value.function !== 'bind' || !isIdent(k.value.target, 'cel')) return;
  const [name, init, body] = k.value.args;
  if (k.value.args.length !== 3 || !isIdent(name) || init === undefined || body === undefined) return;
  const variable = name.exprKind.case === 'identExpr' ? name.exprKind.value.name : '';
  const node = (exprKind: unknown): CelExpr => ({ ...e, id: e.id, exprKind }) as CelExpr;
  e.exprKind = {
    case: 'comprehensionExpr',
    value: {
      $typeName: 'cel.expr.Expr.Comprehension',
      iterVar: '#unused',
      iterVar2: '',
      iterRange: node({
        case: 'listExpr',
        value: { $typeName: 'cel.expr.Expr.CreateList', elements: [], optionalIndices: [] },
      }),
      accuVar: variable,
      accuInit: init,
      loopCondition: node({
        case: 'constExpr',
        value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'boolValue', value: false } },
      }),
      loopStep: node({ case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name: variable } }),
      result: body,
    },
  } as Kind;
}
