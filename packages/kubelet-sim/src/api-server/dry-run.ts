import { invalid } from './api-errors';

/** The options kind kube-apiserver names when a write's `dryRun` is invalid. */
const optionsKind = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
  delete: 'DeleteOptions',
  deletecollection: 'DeleteOptions',
} as const;

/**
 * Whether a write is a dry run: `dryRun=All` (the only value there is; repeated is fine). Any other value is a
 * 422 on the write's options, worded as kube-apiserver words it.
 */
export function dryRunOf(query: URLSearchParams, verb: keyof typeof optionsKind): boolean {
  return isDryRun(query.getAll('dryRun'), verb);
}

/** Whether the `dryRun` values (of the query, or of a DeleteOptions body) ask for a dry run; see {@link dryRunOf}. */
export function isDryRun(values: readonly unknown[], verb: keyof typeof optionsKind): boolean {
  const bad = values.find((v) => v !== 'All');
  if (bad !== undefined) {
    throw invalid(optionsKind[verb], 'meta.k8s.io', '', [
      {
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(bad)}: supported values: "All"`,
        field: 'dryRun',
      },
    ]);
  }
  return values.length > 0;
}
