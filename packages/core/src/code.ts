/**
 * Why a hook failed, as the kubelet will see it: the gRPC status codes under transport-independent names (as
 * connect-es has them), so a plugin chooses a status without importing the gRPC library.
 */
export const Code = {
  Canceled: 1,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  OutOfRange: 11,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  DataLoss: 15,
  Unauthenticated: 16,
} as const;

/** One of the {@link Code} values (numerically the gRPC status code). */
export type Code = (typeof Code)[keyof typeof Code];
