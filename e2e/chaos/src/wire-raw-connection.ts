import { connect } from 'node:net';

// Raw bytes onto a plugin's socket, below HTTP/2: garbage instead of the connection preface, or a valid preface
// followed by random frames; then a PING tells a server that kept the connection from one that hangs.

/** The HTTP/2 client connection preface (RFC 9113 §3.4). */
export const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

const PING = 0x6;
const GOAWAY = 0x7;
const ACK = 0x1;

/** One HTTP/2 frame: a 9-byte header (24-bit length, type, flags, 31-bit stream ID), then the payload. */
export function http2Frame(type: number, flags: number, streamId: number, payload: Uint8Array): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header.writeUInt8(type & 0xff, 3);
  header.writeUInt8(flags & 0xff, 4);
  header.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([header, payload]);
}

/**
 * How a raw connection ended: the server closed it, refused it with a GOAWAY, answered the closing PING, or did
 * none of these in time.
 */
export type RawOutcome = 'closed' | 'goaway' | 'ping-ack' | 'timeout';

/** A GOAWAY, or a PING ACK carrying `opaque`, among the frames in `received` (parsed from the start). */
function answerIn(received: Buffer, opaque: Buffer): 'goaway' | 'ping-ack' | undefined {
  let offset = 0;
  while (received.length - offset >= 9) {
    const length = received.readUIntBE(offset, 3);
    if (received.length - offset - 9 < length) return undefined;
    const type = received.readUInt8(offset + 3);
    const flags = received.readUInt8(offset + 4);
    const payload = received.subarray(offset + 9, offset + 9 + length);
    if (type === GOAWAY) return 'goaway';
    if (type === PING && (flags & ACK) !== 0 && payload.equals(opaque)) return 'ping-ack';
    offset += 9 + length;
  }
  return undefined;
}

/**
 * Opens a connection to `socketPath` and writes `bytes` onto it. With `ping`, a PING frame follows them (the
 * bytes should then start with the preface), and a GOAWAY or the PING's ACK ends the wait too. Resolves with
 * what happened first within `timeoutMs`; the connection is destroyed afterwards.
 */
export function sendRawBytes(
  socketPath: string,
  bytes: Uint8Array,
  options: { readonly ping?: boolean; readonly timeoutMs: number },
): Promise<RawOutcome> {
  const opaque = Buffer.from('kdp-wire');
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    let received = Buffer.alloc(0);
    const finish = (outcome: RawOutcome): void => {
      clearTimeout(timer);
      socket.removeAllListeners('close');
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs);
    socket.on('error', () => undefined); // a reset shows as 'close'
    socket.on('close', () => finish('closed'));
    socket.on('data', (chunk: Buffer) => {
      // The server's frames, after its SETTINGS; they parse as frames only after a valid preface.
      received = Buffer.concat([received, chunk]);
      const answer = options.ping === true ? answerIn(received, opaque) : undefined;
      if (answer !== undefined) finish(answer);
    });
    socket.on('connect', () => {
      socket.write(bytes);
      if (options.ping === true) socket.write(http2Frame(PING, 0, 0, opaque));
    });
  });
}
