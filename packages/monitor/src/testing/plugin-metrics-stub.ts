import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP server standing in for a plugin's metrics endpoint; `body` and `statusCode` can change any time. */
export interface PluginMetricsStub {
  url: string;
  body: string;
  statusCode: number;
  close(): Promise<void>;
}

/** Starts the stub on 127.0.0.1 with a free port. */
export async function startPluginMetricsStub(body = ''): Promise<PluginMetricsStub> {
  const server = createServer((_request, response) => {
    response.writeHead(stub.statusCode, { 'content-type': 'text/plain; version=0.0.4' });
    response.end(stub.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stub: PluginMetricsStub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`,
    body,
    statusCode: 200,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return stub;
}
