import type { NodeInfo, NodeSelector, NodeSelectorRequirement } from './dra-types';

const requirementMatches = (value: string | undefined, r: NodeSelectorRequirement): boolean => {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || !/^-?\d+$/.test(value) || values.length !== 1) return false;
      const [a, b] = [BigInt(value), BigInt(values[0] ?? '0')];
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
};

/** Whether the node matches the selector (terms ORed, requirements ANDed; fields: `metadata.name` only). */
export function nodeMatchesSelector(node: NodeInfo, selector: NodeSelector): boolean {
  const labels = node.metadata.labels ?? {};
  return selector.nodeSelectorTerms.some((term) => {
    const expressions = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (expressions.length === 0 && fields.length === 0) return false;
    return (
      expressions.every((r) => requirementMatches(labels[r.key], r)) &&
      fields.every((r) => requirementMatches(r.key === 'metadata.name' ? node.metadata.name : undefined, r))
    );
  });
}

/** Whether a slice (or a device with per-device node selection) is available on the node. */
export function nodeMatches(
  node: NodeInfo,
  where: { readonly nodeName?: string; readonly allNodes?: boolean; readonly nodeSelector?: NodeSelector },
): boolean {
  if (where.nodeName !== undefined && where.nodeName !== '') return where.nodeName === node.metadata.name;
  if (where.allNodes === true) return true;
  if (where.nodeSelector !== undefined) return nodeMatchesSelector(node, where.nodeSelector);
  return false;
}
