import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { silentLogger, systemClock } from '@kdp/base';
import { createPushSource } from './device-source';
import { createDeviceStore } from './device-store';
import { createResourceServer } from './resource-server';
import { createTempDir } from '@kdp/topology/testing';

/** The HTTP/2 client preface, an empty SETTINGS frame, then a DATA frame on stream 0 (a connection error). */
const PROTOCOL_ERROR = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  Buffer.from([0, 0, 0, 0x4, 0, 0, 0, 0, 0]),
  Buffer.from([0, 0, 0, 0x0, 0, 0, 0, 0, 0]),
]);

describe('createResourceServer', () => {
  it('drops a connection it answered a protocol error on once its keepalive ping goes unanswered', async () => {
    const tmp = createTempDir();
    const resource = 'example.com/dev';
    const server = createResourceServer({
      declaration: { name: resource, source: createPushSource() },
      store: createDeviceStore(resource),
      clock: systemClock,
      logger: silentLogger,
      emit: () => undefined,
      onStreamClosed: () => undefined,
      keepalive: { timeMs: 100, timeoutMs: 100 },
    });
    const path = join(tmp.path, 'dev.sock');
    await server.bind(path);
    const socket = connect(path);
    try {
      socket.on('data', () => undefined); // the server's SETTINGS and GOAWAY
      await once(socket, 'connect');
      socket.write(PROTOCOL_ERROR);
      // Node's HTTP/2 server sends a GOAWAY and then never closes such a connection by itself; without the
      // keepalive this wait runs out.
      await once(socket, 'close', { signal: AbortSignal.timeout(4_000) });
    } finally {
      socket.destroy();
      await server.shutdown(0);
      tmp.remove();
    }
  });
});
