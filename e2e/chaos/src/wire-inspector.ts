import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

// Just enough of a WebSocket client (RFC 6455: handshake, masked text frames out, unmasked frames in) to send
// Chrome DevTools Protocol commands to a process started with `--inspect=127.0.0.1:0`: a leak check needs the
// heap after a full collection, and V8 alone runs one only when it sees fit.

/** The inspector URL a process started with `--inspect` prints on stderr, once it is there. */
export function inspectorUrlIn(stderr: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
}

/** One CDP session over a WebSocket. */
export interface InspectorSession {
  /** Sends a CDP command and resolves with its `result` (rejects with its `error`). */
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
  close(): void;
}

/** A client frame: FIN, the opcode, the mask bit and length, the masking key, the masked payload. */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header =
    length < 126
      ? Buffer.from([0x80 | opcode, 0x80 | length])
      : Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff]);
  if (length > 0xffff) throw new Error('CDP command too long for this client');
  const mask = randomBytes(4);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ (mask[i % 4] ?? 0)));
  return Buffer.concat([header, mask, masked]);
}

/** Parses whole server frames (unmasked) off `buffer`; returns their payloads and the rest. */
function serverFrames(buffer: Buffer): { payloads: Buffer[]; rest: Buffer } {
  const payloads: Buffer[] = [];
  let offset = 0;
  for (;;) {
    if (buffer.length - offset < 2) break;
    let length = (buffer[offset + 1] ?? 0) & 0x7f;
    let start = offset + 2;
    if (length === 126) {
      if (buffer.length - offset < 4) break;
      length = buffer.readUInt16BE(offset + 2);
      start = offset + 4;
    } else if (length === 127) {
      if (buffer.length - offset < 10) break;
      length = Number(buffer.readBigUInt64BE(offset + 2));
      start = offset + 10;
    }
    if (buffer.length < start + length) break;
    payloads.push(buffer.subarray(start, start + length));
    offset = start + length;
  }
  return { payloads, rest: buffer.subarray(offset) };
}

/** Opens a CDP session on `url` (`ws://host:port/id`). */
export async function openInspector(url: string): Promise<InspectorSession> {
  const { hostname, port, pathname } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  const key = randomBytes(16).toString('base64');
  let buffer: Buffer = Buffer.alloc(0);
  let upgraded = false;
  let nextId = 0;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const failAll = (error: Error): void => {
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('close', () => failAll(new Error('the inspector connection closed')));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        if (!head.startsWith('HTTP/1.1 101')) return reject(new Error(`no WebSocket upgrade: ${head}`));
        upgraded = true;
        buffer = buffer.subarray(end + 4);
        resolve();
      }
      const { payloads, rest } = serverFrames(buffer);
      buffer = rest;
      for (const payload of payloads) {
        const message = JSON.parse(payload.toString('utf8')) as {
          id?: number;
          result?: unknown;
          error?: { message: string };
        };
        const waiter = message.id === undefined ? undefined : pending.get(message.id);
        if (waiter === undefined) continue; // an event
        pending.delete(message.id as number);
        if (message.error) waiter.reject(new Error(message.error.message));
        else waiter.resolve(message.result);
      }
    });
    socket.on('connect', () =>
      socket.write(
        `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = (nextId += 1);
        pending.set(id, { resolve, reject });
        socket.write(clientFrame(0x1, Buffer.from(JSON.stringify({ id, method, params }))));
      }),
    close: () => socket.destroy(),
  };
}

/** Runs a full garbage collection in the inspected process, then returns its used heap in MiB. */
export async function heapAfterGcMiB(session: InspectorSession): Promise<number> {
  await session.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await session.send('Runtime.getHeapUsage')) as { usedSize: number };
  return usedSize / 2 ** 20;
}
