import { nodeSelectorMatches } from '@kdp/api';
import { checkClaimConfig, type ConfigDecoder, type DriverConfig } from './claim-config';
import type { DeviceRequestAllocationResult, NodeSelector, ResourceClaim } from './resource-claim';

/** The claim identity the kubelet sends in NodePrepareResources / NodeUnprepareResources. */
export interface ClaimRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** Where the driver runs: the node name, optionally its labels and which pools are this node's. */
export interface NodeIdentity {
  readonly nodeName: string;
  /** The node's labels; `matchExpressions` of an allocation's node selector are checked only when given. */
  readonly nodeLabels?: Readonly<Record<string, string>> | undefined;
  /** Whether a pool of this driver is served by this node; default: every pool. */
  readonly isLocalPool?: ((pool: string) => boolean) | undefined;
}

/** What a checked allocation hands to the driver: this driver's results and its opaque configs, in order. */
export interface CheckedAllocation {
  readonly results: readonly DeviceRequestAllocationResult[];
  /** Entries whose `opaque.driver` is this driver, decoded, class configs first as in the claim (later win). */
  readonly config: readonly DriverConfig[];
}

/**
 * Checks that the ResourceClaim read from the API server is the one the kubelet named (UID), is allocated, has
 * results for `driver` and is usable on this node (allocation node selector, local pools), and that its
 * configuration is this driver's to take (`checkClaimConfig`, with `decode`). Returns this driver's results and
 * decoded configs; throws an Error whose message is the per-claim error the kubelet shows.
 */
export function checkAllocation(
  claim: ResourceClaim | undefined,
  ref: ClaimRef,
  driver: string,
  node: NodeIdentity,
  decode?: ConfigDecoder,
): CheckedAllocation {
  const id = `${ref.namespace}/${ref.name}`;
  if (claim === undefined) throw new Error(`ResourceClaim ${id} not found`);
  if (claim.metadata.uid !== ref.uid)
    throw new Error(
      `ResourceClaim ${id} has UID ${claim.metadata.uid}, the kubelet asked for ${ref.uid} ` +
        '(deleted and re-created?)',
    );
  const allocation = claim.status?.allocation;
  if (allocation === undefined) throw new Error(`ResourceClaim ${id} is not allocated`);
  const results = (allocation.devices?.results ?? []).filter((r) => r.driver === driver);
  if (results.length === 0) throw new Error(`ResourceClaim ${id} has no devices of driver ${driver}`);
  if (allocation.nodeSelector !== undefined && !selectsNode(allocation.nodeSelector, node))
    throw new Error(`ResourceClaim ${id} is allocated to another node, not ${node.nodeName}`);
  const foreign = results.find((r) => node.isLocalPool !== undefined && !node.isLocalPool(r.pool));
  if (foreign !== undefined)
    throw new Error(
      `ResourceClaim ${id}: device ${foreign.pool}/${foreign.device} is not in a pool of node ${node.nodeName}`,
    );
  try {
    return { results, config: checkClaimConfig(allocation.devices?.config ?? [], results, driver, decode) };
  } catch (error) {
    throw new Error(`ResourceClaim ${id}: ${(error as Error).message}`);
  }
}

/** Whether a core/v1 NodeSelector selects this node (terms ORed, requirements ANDed). */
export const selectsNode = (selector: NodeSelector, node: NodeIdentity): boolean =>
  nodeSelectorMatches(selector, { name: node.nodeName, labels: node.nodeLabels });
