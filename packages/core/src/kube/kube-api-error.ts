/** One field problem of a 422 Invalid answer (`details.causes` of the API server's `Status`). */
export interface KubeStatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/**
 * An API server answer outside 2xx, with the HTTP `status` (403: the service account lacks the permission, 409: a
 * stale `resourceVersion` or a failed precondition) and what its `Status` body said: the `reason` (`Conflict`,
 * `Invalid`, `AlreadyExists`, …) and, for 422, the field causes.
 */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason: string | undefined = undefined,
    readonly causes: readonly KubeStatusCause[] = [],
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

/** The error for a non-2xx answer to `METHOD path`, from its `Status` body when there is one. */
export function kubeApiError(method: string, path: string, status: number, body: string): KubeApiError {
  let message = body.slice(0, 300);
  let reason: string | undefined;
  let causes: KubeStatusCause[] = [];
  try {
    const parsed = JSON.parse(body) as {
      message?: unknown;
      reason?: unknown;
      details?: { causes?: unknown };
    };
    if (typeof parsed.message === 'string') message = parsed.message;
    if (typeof parsed.reason === 'string') reason = parsed.reason;
    if (Array.isArray(parsed.details?.causes)) causes = parsed.details.causes as KubeStatusCause[];
  } catch {
    // Not JSON: the start of the body says enough.
  }
  return new KubeApiError(status, `${method} ${withoutQuery(path)}: ${status} ${message}`, reason, causes);
}

/** `path` without its query string, as messages name a request. */
export function withoutQuery(path: string): string {
  return path.split('?')[0] ?? path;
}
