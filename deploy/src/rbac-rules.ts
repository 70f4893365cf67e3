/** One rule of a (Cluster)Role, as the manifests write it. */
export interface PolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames?: readonly string[];
}

/** A request as RBAC judges it: API group, resource (and subresource), verb and the object's name. */
export interface RbacRequest {
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource?: string | undefined;
  readonly verb: string;
  readonly name?: string | undefined;
}

const covers = (values: readonly string[] | undefined, value: string): boolean =>
  (values ?? []).some((candidate) => candidate === '*' || candidate === value);

/**
 * Whether any of `rules` allows `request`, as the API server's RBAC authorizer decides: the group, the resource
 * (`resource/subresource` for a subresource), the verb, and `resourceNames` (when a rule lists them, only those
 * names, never a list, watch, create or deletecollection).
 */
export function rbacAllows(rules: readonly PolicyRule[], request: RbacRequest): boolean {
  const resource =
    request.subresource === undefined ? request.resource : `${request.resource}/${request.subresource}`;
  return rules.some(
    (rule) =>
      covers(rule.apiGroups, request.apiGroup) &&
      covers(rule.resources, resource) &&
      covers(rule.verbs, request.verb) &&
      (rule.resourceNames === undefined ||
        rule.resourceNames.length === 0 ||
        (request.name !== undefined && rule.resourceNames.includes(request.name))),
  );
}
