import type { KubeObject } from './kube-object';

/** One expression of a node-selector term, as the API writes it. */
export interface NodeSelectorExpression {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/** One node-selector term: a node matches when every expression does. */
export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorExpression[];
}

/** What one key of a node may hold under a conjunction: absent or not, and the values still possible. */
interface KeyRange {
  absent: boolean;
  /** `undefined`: any value. */
  only: Set<string> | undefined;
  excluded: Set<string>;
}

/** Whether a node's label `key` can satisfy all these expressions on it at once. */
function keySatisfiable(expressions: readonly NodeSelectorExpression[]): boolean {
  const range: KeyRange = { absent: true, only: undefined, excluded: new Set() };
  for (const { operator, values = [] } of expressions) {
    if (operator === 'In') {
      range.absent = false;
      range.only = new Set(values.filter((value) => range.only === undefined || range.only.has(value)));
    } else if (operator === 'NotIn') for (const value of values) range.excluded.add(value);
    else if (operator === 'Exists') range.absent = false;
    else if (operator === 'DoesNotExist') range.only = new Set();
    // Gt and Lt narrow the values to a range that always holds another value: they never make it empty here.
    else if (operator === 'Gt' || operator === 'Lt') range.absent = false;
    else throw new Error(`unknown node-selector operator ${operator}`);
  }
  if (range.absent) return true; // a node without the label
  if (range.only === undefined) return true; // infinitely many values, finitely many excluded
  return [...range.only].some((value) => !range.excluded.has(value));
}

/** Whether one node can match both terms (each a conjunction of expressions on its labels). */
export function termsOverlap(a: NodeSelectorTerm, b: NodeSelectorTerm): boolean {
  const byKey = new Map<string, NodeSelectorExpression[]>();
  for (const expression of [...(a.matchExpressions ?? []), ...(b.matchExpressions ?? [])]) {
    byKey.set(expression.key, [...(byKey.get(expression.key) ?? []), expression]);
  }
  return [...byKey.values()].every(keySatisfiable);
}

/** The required node-affinity terms of a workload's pods (none: every node). */
export function requiredTerms(workload: KubeObject): NodeSelectorTerm[] {
  const spec = workload['spec'] as {
    template: {
      spec: {
        affinity?: {
          nodeAffinity?: {
            requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
          };
        };
      };
    };
  };
  return (
    spec.template.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
      ?.nodeSelectorTerms ?? [{}]
  );
}

/**
 * A node both workloads' required node affinities admit, as the pair of terms that overlap (`undefined`: no node
 * can run both). Node selectors are left out: both DaemonSets have the same.
 */
export function affinityOverlap(
  a: KubeObject,
  b: KubeObject,
): [NodeSelectorTerm, NodeSelectorTerm] | undefined {
  for (const termA of requiredTerms(a))
    for (const termB of requiredTerms(b)) if (termsOverlap(termA, termB)) return [termA, termB];
  return undefined;
}
