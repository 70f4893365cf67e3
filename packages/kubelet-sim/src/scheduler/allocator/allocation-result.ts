import type {
  AllocationResult,
  DeviceAllocationConfiguration,
  DeviceRequestAllocationResult,
  NodeSelector,
  NodeSelectorRequirement,
  ResourceClaim,
} from '../dra-types';
import { AllocationError, type Candidate, type RequestData, resultName } from './request-data';

/** A device picked for a claim during the search. */
export interface PickedDevice {
  readonly request: RequestData;
  readonly candidate: Candidate;
  readonly shareID?: string;
  readonly consumedCapacity?: Record<string, string>;
}

const sameRequirement = (a: NodeSelectorRequirement, b: NodeSelectorRequirement): boolean =>
  a.key === b.key &&
  a.operator === b.operator &&
  JSON.stringify(a.values ?? []) === JSON.stringify(b.values ?? []);

const addNew = (
  from: readonly NodeSelectorRequirement[] | undefined,
  to: NodeSelectorRequirement[],
): void => {
  for (const r of from ?? []) if (!to.some((t) => sameRequirement(t, r))) to.push(r);
};

/**
 * The allocation's node selector as upstream writes it: a node-local device pins the claim to the node by
 * `metadata.name`; otherwise the slices' one-term selectors merged; devices of `allNodes` slices add nothing.
 */
export function allocationNodeSelector(
  picked: readonly PickedDevice[],
  nodeName: string,
): NodeSelector | undefined {
  const fields: NodeSelectorRequirement[] = [];
  const expressions: NodeSelectorRequirement[] = [];
  for (const { candidate } of picked) {
    const perDevice = candidate.slice.spec.perDeviceNodeSelection === true;
    const where = perDevice ? candidate.device : candidate.slice.spec;
    if ((where.nodeName ?? '') !== '' || candidate.device.bindsToNode === true)
      return {
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }],
      };
    const terms = where.nodeSelector?.nodeSelectorTerms ?? [];
    if (terms.length > 1)
      throw new AllocationError(`unsupported ResourceSlice.NodeSelector with ${terms.length} terms`);
    addNew(terms[0]?.matchFields, fields);
    addNew(terms[0]?.matchExpressions, expressions);
  }
  if (fields.length === 0 && expressions.length === 0) return undefined;
  return {
    nodeSelectorTerms: [
      {
        ...(expressions.length > 0 ? { matchExpressions: expressions } : {}),
        ...(fields.length > 0 ? { matchFields: fields } : {}),
      },
    ],
  };
}

/**
 * The allocation's config: each used class's config once (source FromClass, listing the requests that used the
 * class), then the claim's config (FromClaim) that applies to an allocated request or subrequest; a `requests`
 * list covering every request of the claim is dropped, as upstream does.
 */
export function allocationConfig(
  claim: ResourceClaim,
  chosen: readonly RequestData[],
): DeviceAllocationConfiguration[] {
  const config: DeviceAllocationConfiguration[] = [];
  const byClass = new Map<string, DeviceAllocationConfiguration[]>();
  for (const r of chosen) {
    const name = r.class.metadata.name ?? '';
    const existing = byClass.get(name);
    if (existing !== undefined) {
      for (const c of existing) c.requests?.push(resultName(r));
      continue;
    }
    const added = (r.class.spec?.config ?? []).map((c): DeviceAllocationConfiguration => ({
      source: 'FromClass',
      requests: [resultName(r)],
      ...c,
    }));
    byClass.set(name, added);
    config.push(...added);
  }
  const names = (r: RequestData): string[] => (r.sub === undefined ? [r.base] : [r.base, resultName(r)]);
  for (const c of claim.spec.devices?.config ?? []) {
    const { requests, ...rest } = c;
    if ((requests ?? []).length === 0) {
      config.push({ source: 'FromClaim', ...rest });
      continue;
    }
    if (chosen.some((r) => names(r).some((n) => requests?.includes(n))))
      config.push({ source: 'FromClaim', requests: [...(requests ?? [])], ...rest });
  }
  for (const c of config) {
    if ((c.requests ?? []).length > 0 && chosen.every((r) => names(r).some((n) => c.requests?.includes(n))))
      delete c.requests;
  }
  return config;
}

/** The claim's `status.allocation`. */
export function allocationResult(
  claim: ResourceClaim,
  picked: readonly PickedDevice[],
  chosen: readonly RequestData[],
  nodeName: string,
): AllocationResult {
  const results = picked.map(
    ({ request, candidate, shareID, consumedCapacity }): DeviceRequestAllocationResult => ({
      request: resultName(request),
      driver: candidate.pool.driver,
      pool: candidate.pool.name,
      device: candidate.device.name,
      ...(request.spec.adminAccess === true ? { adminAccess: true } : {}),
      ...((request.spec.tolerations ?? []).length > 0 ? { tolerations: request.spec.tolerations } : {}),
      ...(shareID === undefined ? {} : { shareID }),
      ...(consumedCapacity === undefined ? {} : { consumedCapacity }),
    }),
  );
  const config = allocationConfig(claim, chosen);
  const nodeSelector = allocationNodeSelector(picked, nodeName);
  return {
    devices: { results, ...(config.length > 0 ? { config } : {}) },
    ...(nodeSelector === undefined ? {} : { nodeSelector }),
  };
}
