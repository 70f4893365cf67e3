// The reference of the Allocate benchmark: a device plugin as a minimal Go plugin is written, directly on
// @grpc/grpc-js with @kdp/api's generated service and nothing of kdp's runtime. It serves `<resource>` with the
// device IDs it is given, all healthy, registers on kubelet.sock, and serves and registers again whenever
// kubelet.sock is created anew (a kubelet restart deletes every plugin socket). Allocate answers each container
// request with NVIDIA_VISIBLE_DEVICES and one device node per device (`/dev/nvidia<position>`).
// Usage: node naive-device-plugin.js DIR RESOURCE ID…; `--version` prints its name and exits, as every kdp binary
// does, so that the image's code cache can be taken of it too (tools/image/image-app.mjs runs a bundle with it).
import { existsSync, watch } from 'node:fs';
import { join } from 'node:path';
import { credentials, Server, ServerCredentials, type ServerWritableStream } from '@grpc/grpc-js';
import {
  DevicePluginService,
  Healthy,
  KubeletSocketName,
  RegistrationClient,
  Version,
  type AllocateResponse,
  type DevicePluginServer,
  type Empty,
  type ListAndWatchResponse,
} from '@kdp/api';

if (process.argv[2] === '--version') {
  process.stdout.write('naive-device-plugin\n');
  process.exit(0);
}

const [dir = '', resource = 'kdp.bench/naive-gpu', ...ids] = process.argv.slice(2);
const endpoint = 'naive-gpu.sock';
const socket = join(dir, endpoint);
const devices = ids.map((ID) => ({ ID, health: Healthy, topology: undefined }));
const nodes = new Map(ids.map((id, i) => [id, `/dev/nvidia${i}`]));
const streams = new Set<ServerWritableStream<Empty, ListAndWatchResponse>>();

const service: DevicePluginServer = {
  getDevicePluginOptions: (_call, callback) =>
    callback(null, { preStartRequired: false, getPreferredAllocationAvailable: false }),
  listAndWatch: (call) => {
    streams.add(call);
    call.on('cancelled', () => streams.delete(call));
    call.write({ devices });
  },
  getPreferredAllocation: (_call, callback) => callback(null, { containerResponses: [] }),
  allocate: (call, callback) => {
    const response: AllocateResponse = { containerResponses: [] };
    for (const container of call.request.containerRequests) {
      response.containerResponses.push({
        envs: { NVIDIA_VISIBLE_DEVICES: container.devicesIds.join(',') },
        mounts: [],
        devices: container.devicesIds.map((id) => {
          const path = nodes.get(id) ?? '/dev/null';
          return { containerPath: path, hostPath: path, permissions: 'rw' };
        }),
        annotations: {},
        cdiDevices: [],
      });
    }
    callback(null, response);
  },
  preStartContainer: (_call, callback) => callback(null, {}),
};

let server: Server | undefined;

async function serve(): Promise<void> {
  for (const call of streams) call.end();
  streams.clear();
  server?.forceShutdown();
  server = new Server();
  server.addService(DevicePluginService, service);
  const current = server;
  await new Promise<void>((resolve, reject) =>
    current.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
}

async function register(): Promise<void> {
  const client = new RegistrationClient(
    `unix://${join(dir, KubeletSocketName)}`,
    credentials.createInsecure(),
  );
  try {
    await new Promise<void>((resolve, reject) =>
      client.register({ version: Version, endpoint, resourceName: resource, options: undefined }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  } finally {
    client.close();
  }
}

// One restart at a time: events that arrive meanwhile fold into one more round.
let running: Promise<void> = Promise.resolve();
let pending = false;
function restart(): void {
  if (pending) return;
  pending = true;
  running = running.then(async () => {
    pending = false;
    if (!existsSync(join(dir, KubeletSocketName))) return;
    try {
      await serve();
      await register();
    } catch (error) {
      process.stderr.write(`naive plugin: ${String(error)}\n`);
    }
  });
}

watch(dir, (_event, name) => {
  if (name === KubeletSocketName) restart();
});
restart();
process.on('SIGTERM', () => {
  server?.forceShutdown();
  process.exit(0);
});
