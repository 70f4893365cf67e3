import { chmodSync, rmSync } from 'node:fs';
import {
  type CallOptions,
  type Client,
  Metadata,
  type Server,
  connectivityState,
  ServerCredentials,
  type ServerErrorResponse,
  type ServiceError,
  status,
} from '@grpc/grpc-js';

/** Mode of every socket the simulator serves: owner and group only. */
const socketMode = 0o660;

/** Binds `server` on a unix socket, replacing a stale socket file first (P-3), and restricts its mode. */
export async function bindUnix(server: Server, path: string): Promise<void> {
  rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${path}`, ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  chmodSync(path, socketMode);
}

/**
 * Stops a server at once, ending every call (the kubelet disconnects its clients on stop, P-4); resolves once
 * the listener is closed and its socket file unlinked, so a new server may bind the same path.
 */
export function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.tryShutdown(() => resolve());
    server.forceShutdown();
  });
}

/** A gRPC error with a status code and details, as a server handler returns it. */
export function rpcError(code: status, details: string): ServerErrorResponse {
  return Object.assign(new Error(details), { code, details, metadata: new Metadata() });
}

const goCodeNames: Readonly<Record<number, string>> = {
  [status.OK]: 'OK',
  [status.CANCELLED]: 'Canceled',
  [status.UNKNOWN]: 'Unknown',
  [status.INVALID_ARGUMENT]: 'InvalidArgument',
  [status.DEADLINE_EXCEEDED]: 'DeadlineExceeded',
  [status.NOT_FOUND]: 'NotFound',
  [status.ALREADY_EXISTS]: 'AlreadyExists',
  [status.PERMISSION_DENIED]: 'PermissionDenied',
  [status.RESOURCE_EXHAUSTED]: 'ResourceExhausted',
  [status.FAILED_PRECONDITION]: 'FailedPrecondition',
  [status.ABORTED]: 'Aborted',
  [status.OUT_OF_RANGE]: 'OutOfRange',
  [status.UNIMPLEMENTED]: 'Unimplemented',
  [status.INTERNAL]: 'Internal',
  [status.UNAVAILABLE]: 'Unavailable',
  [status.DATA_LOSS]: 'DataLoss',
  [status.UNAUTHENTICATED]: 'Unauthenticated',
};

/** Formats an error as grpc-go prints a status error (`rpc error: code = Unknown desc = …`), as the kubelet logs it. */
export function goErrorString(err: unknown): string {
  if (isServiceError(err)) {
    return `rpc error: code = ${goCodeNames[err.code] ?? `Code(${err.code})`} desc = ${err.details}`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Whether `err` is a gRPC status error from a client call. */
export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number' && 'details' in err;
}

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => unknown;

/** Calls a unary method of a generated client as a promise, with an optional deadline in ms. */
export function callUnary<Req, Res>(
  client: Client,
  method: UnaryMethod<Req, Res>,
  request: Req,
  timeoutMs?: number,
): Promise<Res> {
  const options: Partial<CallOptions> = timeoutMs === undefined ? {} : { deadline: Date.now() + timeoutMs };
  return new Promise((resolve, reject) => {
    method.call(client, request, new Metadata(), options, (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}

/**
 * Waits until a client is connected, as grpc-go's blocking dial does (P-11). Watches in short slices so that a
 * closed client leaves no long timer behind (grpc-js keeps the watch timer of a closed channel).
 */
export async function waitForReady(client: Client, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const channel = client.getChannel();
  for (;;) {
    if (signal?.aborted) throw new Error('dial aborted: the kubelet stopped');
    const state = channel.getConnectivityState(true);
    if (state === connectivityState.READY) return;
    if (state === connectivityState.SHUTDOWN) throw new Error('the channel was shut down');
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error('context deadline exceeded');
    await new Promise<void>((resolve) =>
      channel.watchConnectivityState(state, Date.now() + Math.min(remaining, 200), () => resolve()),
    );
  }
}

/**
 * Client options of every connection the simulated kubelet opens to a plugin (authority `localhost`, P-11).
 * A private subchannel pool makes each dial fresh, as grpc-go's: a shared subchannel to a socket that was
 * deleted and bound again would still be in its 1 s reconnect backoff.
 */
export const pluginChannelOptions = {
  'grpc.default_authority': 'localhost',
  'grpc.use_local_subchannel_pool': 1,
} as const;
