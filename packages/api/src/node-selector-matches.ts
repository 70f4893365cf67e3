/** A core/v1 NodeSelectorRequirement, as far as matching reads it. */
export interface NodeSelectorRequirementLike {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[] | undefined;
}

/** A core/v1 NodeSelector, as far as matching reads it: terms ORed, the requirements of a term ANDed. */
export interface NodeSelectorLike {
  readonly nodeSelectorTerms: readonly {
    readonly matchExpressions?: readonly NodeSelectorRequirementLike[] | undefined;
    readonly matchFields?: readonly NodeSelectorRequirementLike[] | undefined;
  }[];
}

const integer = /^-?\d+$/;

/** Whether `value` (a label, or `undefined` when the node has none) meets the requirement, as core/v1 defines it. */
function requirementMatches(r: NodeSelectorRequirementLike, value: string | undefined): boolean {
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
      // One integer value, compared as int64 (BigInt: no rounding beyond 2^53).
      const [bound] = values;
      if (value === undefined || bound === undefined || values.length !== 1) return false;
      if (!integer.test(value) || !integer.test(bound)) return false;
      return r.operator === 'Gt' ? BigInt(value) > BigInt(bound) : BigInt(value) < BigInt(bound);
    }
    default:
      return false;
  }
}

/**
 * Whether a core/v1 NodeSelector selects the node: some term whose requirements all hold (an empty term selects
 * nothing); `matchFields` know `metadata.name` only. With `labels` undefined (a caller that does not know the
 * node's labels) `matchExpressions` are not checked.
 */
export function nodeSelectorMatches(
  selector: NodeSelectorLike,
  node: { readonly name: string | undefined; readonly labels: Readonly<Record<string, string>> | undefined },
): boolean {
  const { labels } = node;
  return selector.nodeSelectorTerms.some((term) => {
    const expressions = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (expressions.length === 0 && fields.length === 0) return false;
    return (
      fields.every((r) => requirementMatches(r, r.key === 'metadata.name' ? node.name : undefined)) &&
      (labels === undefined || expressions.every((r) => requirementMatches(r, labels[r.key])))
    );
  });
}
