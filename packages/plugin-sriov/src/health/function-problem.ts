import type { NicFunction } from '../scan/nic-function';

/**
 * Why a pooled function is unhealthy: no driver bound, or (a network function) its PF without carrier; undefined
 * when it is healthy. Nothing on the host is changed: a missing carrier is reported, never fixed.
 */
export function functionProblem(fn: NicFunction): string | undefined {
  if (fn.driver === undefined) return 'no driver is bound';
  if (fn.kind === 'netDevice' && fn.pfCarrier === false) return `PF ${fn.pfName ?? ''} has no carrier`.trim();
  return undefined;
}
