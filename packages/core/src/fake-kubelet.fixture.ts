// A deliberately small kubelet for tests that the simulator does not cover (the v1alpha-only kubelet of old).
import { EventEmitter } from 'node:events';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { credentials, Server, ServerCredentials, status } from '@grpc/grpc-js';
import { KubeletSocketName, v1alpha } from '@kdp/api';

/** A v1alpha-only kubelet: Register on `/deviceplugin.Registration/Register`; v1beta1 calls get UNIMPLEMENTED. */
export interface FakeV1alphaKubelet {
  readonly events: EventEmitter;
  readonly registrations: v1alpha.RegisterRequest[];
  readonly devices: Map<string, v1alpha.Device[]>;
  allocate(resource: string, ids: string[]): Promise<v1alpha.AllocateResponse>;
  close(): Promise<void>;
}

/** Starts a v1alpha-only kubelet in `dir`. */
export async function startFakeV1alphaKubelet(dir: string): Promise<FakeV1alphaKubelet> {
  const events = new EventEmitter();
  const registrations: v1alpha.RegisterRequest[] = [];
  const devices = new Map<string, v1alpha.Device[]>();
  const clients = new Map<string, v1alpha.DevicePluginClient>();
  const server = new Server();
  server.addService(v1alpha.RegistrationService, {
    register: (call, callback) => {
      const request = call.request;
      if (request.version !== 'v1alpha2') {
        callback({ code: status.UNKNOWN, details: `unsupported version ${request.version}` });
        return;
      }
      registrations.push(request);
      const client = new v1alpha.DevicePluginClient(
        `unix://${join(dir, request.endpoint)}`,
        credentials.createInsecure(),
      );
      clients.get(request.resourceName)?.close();
      clients.set(request.resourceName, client);
      callback(null, {});
      const stream = client.listAndWatch({});
      stream.on('data', (message: v1alpha.ListAndWatchResponse) => {
        devices.set(request.resourceName, message.devices);
        events.emit('devices', request.resourceName, message.devices);
      });
      stream.on('error', () => undefined);
      events.emit('registered', request.resourceName);
    },
  } satisfies v1alpha.RegistrationServer);
  const path = join(dir, KubeletSocketName);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${path}`, ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  return {
    events,
    registrations,
    devices,
    allocate: (resource, ids) =>
      new Promise((resolve, reject) => {
        const client = clients.get(resource);
        if (!client) return reject(new Error(`${resource} is not registered`));
        client.allocate({ devicesIDs: ids }, (error, response) =>
          error ? reject(error) : resolve(response),
        );
      }),
    close: async () => {
      for (const client of clients.values()) client.close();
      server.forceShutdown();
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    },
  };
}
