import {
  connect as connectHttp2,
  constants,
  type ClientHttp2Session,
  type ClientHttp2Stream,
} from 'node:http2';
import { connect as connectNet } from 'node:net';

// A raw HTTP/2 gRPC client for fuzzing a plugin's socket: it sends whatever bytes it is given, framed or not,
// and reports how the server ended each call (a grpc-status, a reset, a closed connection, or nothing in time).

/** How one call ended, as seen on the wire. */
export type WireOutcome =
  /** The server sent a `grpc-status` (in trailers, or trailers-only) after `replies`. */
  | {
      readonly kind: 'status';
      readonly code: number;
      readonly message: string;
      readonly replies: readonly Buffer[];
    }
  /** The stream was reset (or the connection went away) without a status. */
  | { readonly kind: 'reset'; readonly rstCode: number }
  /** Nothing ended the call within the bound. */
  | { readonly kind: 'timeout' };

/** Options of {@link grpcFrame}. */
export interface FrameOptions {
  /** Sets the compressed flag (byte 0). */
  readonly compressed?: boolean;
  /** The length written into the prefix instead of the message's own (a lie, for truncated frames). */
  readonly declaredLength?: number;
}

/** One length-prefixed gRPC message: a compressed flag, a 4-byte big-endian length, then the bytes. */
export function grpcFrame(message: Uint8Array, options: FrameOptions = {}): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt8(options.compressed === true ? 1 : 0, 0);
  prefix.writeUInt32BE(options.declaredLength ?? message.length, 1);
  return Buffer.concat([prefix, message]);
}

/** Options of one {@link WireSession.call}. */
export interface WireCallOptions {
  /** Extra request headers (e.g. `grpc-encoding`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Whether to half-close after the body (default true); false leaves the request open. */
  readonly endStream?: boolean;
  /** Resolve once the first whole reply message arrived, leaving the stream open (a server stream). */
  readonly untilFirstMessage?: boolean;
  /** Bound on the wait (default 10 s). */
  readonly timeoutMs?: number;
}

/** A call the server answered with a first message and left open (see `untilFirstMessage`). */
export interface OpenCall {
  readonly outcome: WireOutcome | { readonly kind: 'message'; readonly first: Buffer };
  /** Whole messages received so far. */
  received(): number;
  /** Resolves true once `count` messages arrived, false if the stream closed first or `timeoutMs` passed. */
  waitForMessages(count: number, timeoutMs: number): Promise<boolean>;
  /** Cancels the stream (RST_STREAM CANCEL) and resolves once it is closed. */
  cancel(): Promise<void>;
}

/** One HTTP/2 connection to a unix socket. */
export interface WireSession {
  /** A gRPC request to `path` with `body` as its DATA; resolves with how it ended. */
  call(path: string, body: Uint8Array, options?: WireCallOptions): Promise<WireOutcome>;
  /** Like `call` with `untilFirstMessage`, keeping the stream for the caller to cancel. */
  open(path: string, body: Uint8Array, options?: WireCallOptions): Promise<OpenCall>;
  /** Whether the server closed the connection (GOAWAY or socket end). */
  closed(): boolean;
  /** Closes the connection (destroying it after `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** Parses every whole length-prefixed message out of `buffer`; returns them and the rest. */
function splitMessages(buffer: Buffer): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let offset = 0;
  while (buffer.length - offset >= 5) {
    const length = buffer.readUInt32BE(offset + 1);
    if (buffer.length - offset - 5 < length) break;
    messages.push(buffer.subarray(offset + 5, offset + 5 + length));
    offset += 5 + length;
  }
  return { messages, rest: buffer.subarray(offset) };
}

/** Opens an HTTP/2 session over the unix socket at `socketPath`. */
export async function createWireSession(socketPath: string): Promise<WireSession> {
  const session: ClientHttp2Session = connectHttp2('http://localhost', {
    createConnection: () => connectNet(socketPath),
    // The server sets no concurrent-stream limit; do not assume Node's default of 100 before its SETTINGS.
    peerMaxConcurrentStreams: 100_000,
  });
  let closed = false;
  session.on('close', () => (closed = true));
  session.on('goaway', () => (closed = true));
  session.on('error', () => (closed = true));
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });

  const start = (path: string, body: Uint8Array, options: WireCallOptions): ClientHttp2Stream => {
    const stream = session.request(
      {
        ':method': 'POST',
        ':path': path,
        'content-type': 'application/grpc',
        te: 'trailers',
        ...options.headers,
      },
      { endStream: false },
    );
    stream.on('error', () => undefined); // outcomes are read from the status and 'close'
    if (options.endStream === false) stream.write(body);
    else stream.end(body);
    return stream;
  };

  const watch = (
    stream: ClientHttp2Stream,
    options: WireCallOptions,
    replies: Buffer[] = [],
  ): Promise<WireOutcome | { kind: 'message'; first: Buffer }> =>
    new Promise((resolve) => {
      let pending: Buffer = Buffer.alloc(0);
      let status: { code: number; message: string } | undefined;
      const readStatus = (headers: Record<string, unknown>): void => {
        const code = headers['grpc-status'];
        if (code === undefined || status !== undefined) return;
        status = { code: Number(code), message: decodeURIComponent(String(headers['grpc-message'] ?? '')) };
        // The call is over once the status is in, even while this side of the stream is still open.
        finish({ kind: 'status', ...status, replies });
      };
      const timer = setTimeout(() => finish({ kind: 'timeout' }), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const finish = (outcome: WireOutcome | { kind: 'message'; first: Buffer }): void => {
        clearTimeout(timer);
        resolve(outcome);
      };
      stream.on('response', readStatus);
      stream.on('trailers', readStatus);
      stream.on('data', (chunk: Buffer) => {
        const split = splitMessages(Buffer.concat([pending, chunk]));
        pending = split.rest;
        replies.push(...split.messages);
        if (split.messages.length > 0) stream.emit('grpc-message');
        const [first] = split.messages;
        if (options.untilFirstMessage === true && first !== undefined) finish({ kind: 'message', first });
      });
      stream.on('close', () =>
        finish(
          status !== undefined
            ? { kind: 'status', ...status, replies }
            : { kind: 'reset', rstCode: stream.rstCode ?? constants.NGHTTP2_INTERNAL_ERROR },
        ),
      );
      stream.resume();
    });

  const cancelStream = (stream: ClientHttp2Stream): Promise<void> =>
    new Promise((resolve) => {
      if (stream.closed || stream.destroyed) return resolve();
      stream.once('close', () => resolve());
      stream.close(constants.NGHTTP2_CANCEL);
    });

  return {
    async call(path, body, options = {}) {
      const stream = start(path, body, options);
      const outcome = await watch(stream, options);
      await cancelStream(stream); // a no-op once the server closed it
      return outcome.kind === 'message' ? { kind: 'timeout' } : outcome;
    },
    async open(path, body, options = {}) {
      const stream = start(path, body, options);
      const replies: Buffer[] = [];
      const outcome = await watch(stream, { ...options, untilFirstMessage: true }, replies);
      const waitForMessages = (count: number, timeoutMs: number): Promise<boolean> =>
        new Promise((resolve) => {
          const check = (): void => {
            if (replies.length < count && !stream.closed) return;
            done(replies.length >= count);
          };
          const timer = setTimeout(() => done(false), timeoutMs);
          const done = (result: boolean): void => {
            clearTimeout(timer);
            stream.off('grpc-message', check);
            stream.off('close', check);
            resolve(result);
          };
          stream.on('grpc-message', check);
          stream.on('close', check);
          check();
        });
      return {
        outcome,
        received: () => replies.length,
        waitForMessages,
        cancel: () => cancelStream(stream),
      };
    },
    closed: () => closed || session.closed || session.destroyed,
    close: (graceMs = 2_000) =>
      new Promise<void>((resolve) => {
        if (session.destroyed) return resolve();
        const timer = setTimeout(() => session.destroy(), graceMs);
        session.close(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/** An outcome in one line: `status <code>: <message>`, `reset <code>` or `timeout`. */
export function describeOutcome(outcome: WireOutcome): string {
  if (outcome.kind === 'status') return `status ${outcome.code}: ${outcome.message}`;
  return outcome.kind === 'reset' ? `reset ${outcome.rstCode}` : 'timeout';
}
