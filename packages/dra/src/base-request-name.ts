/**
 * The request a container names for an allocation result's request: `main` for a prioritized-list result
 * `main/sub`, the request itself otherwise (upstream's `resourceclaim.BaseRequestRef`). The kubelet matches a
 * container's `resources.claims[].request` exactly against a prepared device's request names.
 */
export function baseRequestName(request: string): string {
  const slash = request.indexOf('/');
  return slash < 0 ? request : request.slice(0, slash);
}
