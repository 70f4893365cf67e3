import { nodeSelectorMatches } from '@kdp/api';
import type { NodeInfo, NodeSelector } from './dra-types';

/** Whether the node matches the selector (terms ORed, requirements ANDed; fields: `metadata.name` only). */
export const nodeMatchesSelector = (node: NodeInfo, selector: NodeSelector): boolean =>
  nodeSelectorMatches(selector, { name: node.metadata.name, labels: node.metadata.labels ?? {} });

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
