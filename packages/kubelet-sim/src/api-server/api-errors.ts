/** One field problem of a 422 Invalid `Status`, as kube-apiserver lists it in `details.causes`. */
export interface StatusCause {
  readonly reason: string;
  readonly message: string;
  readonly field: string;
}

/** A Kubernetes `Status` object (`kind: Status`) as the API server returns it for failures. */
export interface ApiStatus {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Failure' | 'Success';
  readonly message: string;
  readonly reason: string;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly uid?: string;
    readonly causes?: readonly StatusCause[];
  };
  readonly code: number;
}

/** A failure that the API server answers with a `Status` body and its HTTP code. */
export class ApiError extends Error {
  constructor(readonly status: ApiStatus) {
    super(status.message);
    this.name = 'ApiError';
  }

  /** The HTTP status code. */
  get code(): number {
    return this.status.code;
  }
}

/** The group-qualified resource name used in messages: `resourceslices.resource.k8s.io`, or `nodes`. */
export const qualifiedResource = (resource: string, group: string): string =>
  group === '' ? resource : `${resource}.${group}`;

const failure = (code: number, reason: string, message: string, details?: ApiStatus['details']): ApiError =>
  new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details === undefined ? {} : { details }),
    code,
  });

/** 404 NotFound. */
export const notFound = (resource: string, group: string, name: string): ApiError =>
  failure(404, 'NotFound', `${qualifiedResource(resource, group)} "${name}" not found`, {
    name,
    group,
    kind: resource,
  });

/** 409 AlreadyExists on create. */
export const alreadyExists = (resource: string, group: string, name: string): ApiError =>
  failure(409, 'AlreadyExists', `${qualifiedResource(resource, group)} "${name}" already exists`, {
    name,
    group,
    kind: resource,
  });

/** 409 Conflict: an update or delete with a stale resourceVersion (or another precondition). */
export const conflict = (resource: string, group: string, name: string, why?: string): ApiError =>
  failure(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(resource, group)} "${name}": ${
      why ?? 'the object has been modified; please apply your changes to the latest version and try again'
    }`,
    { name, group, kind: resource },
  );

/** 422 Invalid with one cause per field problem. */
export const invalid = (
  kind: string,
  group: string,
  name: string,
  causes: readonly StatusCause[],
): ApiError => {
  const lines = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`;
  const qualifiedKind = group === '' ? kind : `${kind}.${group}`;
  return failure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, {
    name,
    group,
    kind,
    causes,
  });
};

/** 400 BadRequest. */
export const badRequest = (message: string): ApiError => failure(400, 'BadRequest', message);

/** 401 Unauthorized. */
export const unauthorized = (): ApiError => failure(401, 'Unauthorized', 'Unauthorized');

/** 403 Forbidden, worded as RBAC words it. */
export const forbidden = (
  verb: string,
  resource: string,
  group: string,
  name: string | undefined,
  namespace: string | undefined,
): ApiError => {
  const what =
    name === undefined
      ? qualifiedResource(resource, group)
      : `${qualifiedResource(resource, group)} "${name}"`;
  const scope = namespace === undefined ? 'at the cluster scope' : `in the namespace "${namespace}"`;
  return failure(
    403,
    'Forbidden',
    `${what} is forbidden: User "kubelet-sim-client" cannot ${verb} resource "${resource}" in API group "${group}" ${scope}`,
    { ...(name === undefined ? {} : { name }), group, kind: resource },
  );
};

/** 405 MethodNotAllowed. */
export const methodNotAllowed = (method: string): ApiError =>
  failure(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource (${method})`,
  );

/** 415 UnsupportedMediaType. */
export const unsupportedMediaType = (type: string): ApiError =>
  failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: application/json, application/merge-patch+json (got ${type})`,
  );

/** 500 InternalError. */
export const internalError = (message: string): ApiError => failure(500, 'InternalError', message);

/** A `Status` with `status: Success`, as a DELETE of one object returns it. */
export const successStatus = (resource: string, group: string, name: string, uid: string): ApiStatus => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Success',
  message: '',
  reason: '',
  details: { name, group, kind: resource, uid },
  code: 200,
});

/** The HTTP code of a ValidatingAdmissionPolicy validation's `reason`, as kube-apiserver maps it. */
const admissionCodes: Readonly<Record<string, number>> = {
  Unauthorized: 401,
  Forbidden: 403,
  Invalid: 422,
  RequestEntityTooLarge: 413,
};

/**
 * A request a ValidatingAdmissionPolicy denied, as kube-apiserver words it (so kubectl shows it):
 * `<resource>.<group> "<name>" is forbidden: ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied
 * request: <message>`, with the validation's reason (default Invalid, 422) and code.
 */
export const admissionDenied = (
  resource: string,
  group: string,
  name: string,
  denial: { policy: string; binding: string; message: string; reason: string },
): ApiError => {
  const message = `ValidatingAdmissionPolicy '${denial.policy}' with binding '${denial.binding}' denied request: ${denial.message}`;
  return failure(
    admissionCodes[denial.reason] ?? 422,
    denial.reason,
    `${qualifiedResource(resource, group)} "${name}" is forbidden: ${message}`,
    { name, group, kind: resource, causes: [{ reason: '', message, field: '' }] },
  );
};
