import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import { draHealthV1, draHealthV1alpha1, draV1, draV1beta1, pluginregistration } from '@kdp/api';
import type { ClaimReader } from './claim-reader';
import type { DeviceRequestAllocationResult, ResourceClaim } from './resource-claim';

/** A short temporary directory tree for one test: registry, plugins, CDI, proc; and its removal. */
export function createTestDirs(): {
  root: string;
  registry: string;
  plugins: string;
  cdi: string;
  proc: string;
  setBootId(id: string): void;
  remove(): void;
} {
  const root = mkdtempSync(join(tmpdir(), 'dra-'));
  const dirs = {
    registry: join(root, 'reg'),
    plugins: join(root, 'plug'),
    cdi: join(root, 'cdi'),
    proc: join(root, 'proc'),
  };
  mkdirSync(join(dirs.proc, 'sys/kernel/random'), { recursive: true });
  const setBootId = (id: string): void =>
    writeFileSync(join(dirs.proc, 'sys/kernel/random/boot_id'), `${id}\n`);
  setBootId('boot-1');
  return { root, ...dirs, setBootId, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A ResourceClaim allocated on `node` with `devices` of `driver` (pool = node name unless given). */
export function allocatedClaim(
  name: string,
  uid: string,
  devices: readonly Partial<DeviceRequestAllocationResult>[],
  options: { node?: string; driver?: string; namespace?: string } = {},
): ResourceClaim {
  const node = options.node ?? 'node-1';
  const driver = options.driver ?? 'gpu.kdp.dev';
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name, namespace: options.namespace ?? 'default', uid },
    status: {
      allocation: {
        devices: {
          results: devices.map((d) => ({ request: 'gpu', driver, pool: node, device: 'gpu-0', ...d })),
          config: [
            { source: 'FromClass', opaque: { driver, parameters: { mode: 'class' } } },
            { source: 'FromClaim', requests: ['gpu'], opaque: { driver: 'other.dev', parameters: {} } },
          ],
        },
        nodeSelector: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
        },
      },
    },
  };
}

/** A ClaimReader over an in-memory map keyed `namespace/name`, counting its calls. */
export function createFakeClaimReader(claims: ResourceClaim[] = []): ClaimReader & {
  readonly store: Map<string, ResourceClaim>;
  readonly calls: string[];
  /** Makes the next get of `namespace/name` wait for the returned release function. */
  hold(key: string): () => void;
} {
  const store = new Map(claims.map((c) => [`${c.metadata.namespace}/${c.metadata.name}`, c]));
  const calls: string[] = [];
  const holds = new Map<string, Promise<void>>();
  return {
    store,
    calls,
    hold(key) {
      let release = (): void => undefined;
      holds.set(key, new Promise<void>((resolve) => (release = resolve)));
      return () => release();
    },
    async get(namespace, name) {
      const key = `${namespace}/${name}`;
      calls.push(key);
      const held = holds.get(key);
      if (held !== undefined) {
        holds.delete(key);
        await held;
      }
      return store.get(key);
    },
  };
}

/** The gRPC clients a kubelet would use on the two sockets. */
export function createClients(registrationSocket: string, draSocket: string) {
  const creds = credentials.createInsecure();
  const clients = {
    registration: new pluginregistration.RegistrationClient(`unix://${registrationSocket}`, creds),
    v1: new draV1.DRAPluginClient(`unix://${draSocket}`, creds),
    v1beta1: new draV1beta1.DRAPluginClient(`unix://${draSocket}`, creds),
    healthV1: new draHealthV1.DRAResourceHealthClient(`unix://${draSocket}`, creds),
    healthV1alpha1: new draHealthV1alpha1.DRAResourceHealthClient(`unix://${draSocket}`, creds),
  };
  return {
    ...clients,
    close: () => Object.values(clients).forEach((c) => c.close()),
  };
}

/** Promisifies one unary call of a generated client. */
export function unary<Req, Res>(
  method: (req: Req, cb: (error: Error | null, res: Res) => void) => unknown,
  client: object,
  request: Req,
): Promise<Res> {
  return new Promise((resolve, reject) =>
    method.call(client, request, (error, response) => (error ? reject(error) : resolve(response))),
  );
}
