import { badRequest } from './api-errors';
import { isDryRun } from './dry-run';

/** What a DELETE may carry (`DeleteOptions` body and query), as far as kubelet-sim acts on it. */
export interface DeleteOptions {
  readonly preconditions?: { uid?: string; resourceVersion?: string };
  /** `dryRun: [All]` in the body or `dryRun=All` in the query. */
  readonly dryRun?: boolean;
}

const policies = ['Orphan', 'Background', 'Foreground'];

/**
 * The `DeleteOptions` of a DELETE from its body and query, checked as kube-apiserver checks them: a
 * `propagationPolicy` other than Orphan, Background or Foreground, or a negative `gracePeriodSeconds`, is a 400.
 * `dryRun` other than `All` is a 422. Every object is deleted at once (no finalizers, no grace period, no dependents to propagate to), which is what
 * each accepted value means for the kinds served here.
 */
export function deleteOptionsOf(
  query: URLSearchParams,
  body: unknown,
  verb: 'delete' | 'deletecollection' = 'delete',
): DeleteOptions {
  const options = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const policy = options['propagationPolicy'] ?? query.get('propagationPolicy');
  if (policy !== null && policy !== undefined && !policies.includes(String(policy))) {
    throw badRequest(
      `propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    );
  }
  const grace = options['gracePeriodSeconds'] ?? query.get('gracePeriodSeconds');
  if (grace !== null && grace !== undefined && !(Number.isInteger(Number(grace)) && Number(grace) >= 0)) {
    throw badRequest(
      `gracePeriodSeconds: Invalid value: ${JSON.stringify(grace)}: must be greater than or equal to 0`,
    );
  }
  const inBody = Array.isArray(options['dryRun']) ? (options['dryRun'] as unknown[]) : [];
  const dryRun = isDryRun([...inBody, ...query.getAll('dryRun')], verb);
  const preconditions = options['preconditions'] as DeleteOptions['preconditions'] | undefined;
  return { ...(preconditions === undefined ? {} : { preconditions }), ...(dryRun ? { dryRun } : {}) };
}
