import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { draV1 } from '@kdp/api';
import type { DraApiServerConnection } from '../../dra/dra-api-client';
import { createFakeDraDriver, type FakeDraDriver } from '../../dra/fake-dra-driver.fixture';

/** What a broken variant of the test driver gets wrong (each should fail one check of the suite). */
export type TestDraDriverFault =
  | 'no-slices'
  | 'bad-cdi-ids'
  | 'not-idempotent'
  | 'ignores-uid'
  | 'unknown-unprepare-error'
  | 'no-republish'
  | 'no-cdi-after-reboot'
  | 'full-request-names'
  | 'accepts-any-config';

/** Options of {@link createTestDraDriver}. */
export interface TestDraDriverOptions {
  readonly root: string;
  readonly registryDir: string;
  readonly apiServer: DraApiServerConnection;
  readonly nodeName: string;
  readonly driver?: string;
  readonly devices?: number;
  readonly fault?: TestDraDriverFault;
  readonly supportedVersions?: readonly string[];
}

/** A small DRA driver over raw gRPC and the HTTP API: what a driver must do, and no more. */
export interface TestDraDriver {
  readonly driver: string;
  readonly cdiDir: string;
  /** Stops and serves its DRA socket again, keeping its prepared claims (its "checkpoint"). */
  restart(): Promise<void>;
  /**
   * A node reboot: stops its DRA socket, empties the CDI directory and serves again, keeping its prepared claims;
   * the next prepare of a claim writes its CDI spec again (unless `no-cdi-after-reboot`).
   */
  reboot(): Promise<void>;
  stop(): Promise<void>;
}

interface Claim {
  metadata: { uid: string };
  status?: {
    allocation?: {
      devices?: {
        results?: Array<{ driver: string; pool: string; device: string; request: string }>;
        config?: Array<{ opaque?: { driver: string; parameters?: { apiVersion?: string; kind?: string } } }>;
      };
    };
  };
}

/**
 * Starts the test driver: registers through the plugin watcher, publishes one slice for `nodeName` (owned by
 * the Node, PCI attributes), publishes it again whenever it is deleted, prepares claims read from the API
 * server (UID checked) with a CDI spec per claim, idempotently, and serves health for its devices.
 */
export async function createTestDraDriver(options: TestDraDriverOptions): Promise<TestDraDriver> {
  const driver = options.driver ?? 'gpu.example.com';
  const fault = options.fault;
  const base = options.apiServer.url.replace(/\/+$/, '');
  const cdiDir = join(options.root, 'cdi');
  mkdirSync(cdiDir, { recursive: true, mode: 0o750 });
  const devices = Array.from({ length: options.devices ?? 2 }, (_, i) => ({
    name: `gpu-${i}`,
    attributes: {
      [`${driver}/model`]: { string: 'T4' },
      'resource.kubernetes.io/pciBusID': { string: `0000:${(0x3b + i).toString(16)}:00.0` },
      'resource.kubernetes.io/pcieRoot': { string: 'pci0000:3a' },
    },
  }));
  const api = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const parsed = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(String(parsed['message'] ?? response.status));
    return parsed;
  };

  let generation = 0;
  const publish = async (): Promise<void> => {
    if (fault === 'no-slices') return;
    generation += 1;
    const node = (await api('GET', `/api/v1/nodes/${options.nodeName}`)) as { metadata: { uid: string } };
    await api('POST', '/apis/resource.k8s.io/v1/resourceslices', {
      metadata: {
        name: `${options.nodeName}-${driver}-${generation}`,
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: options.nodeName, uid: node.metadata.uid }],
      },
      spec: {
        driver,
        nodeName: options.nodeName,
        pool: { name: options.nodeName, generation, resourceSliceCount: 1 },
        devices,
      },
    });
  };

  // Watches its slices and publishes again once they are deleted (the kubelet wipes them at its start).
  const watching = new AbortController();
  const watch = async (): Promise<void> => {
    const selector = encodeURIComponent(`spec.nodeName=${options.nodeName},spec.driver=${driver}`);
    const response = await fetch(
      `${base}/apis/resource.k8s.io/v1/resourceslices?watch=true&fieldSelector=${selector}`,
      {
        signal: watching.signal,
      },
    );
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const event = JSON.parse(line) as { type: string };
        if (event.type === 'DELETED' && fault !== 'no-republish') await publish();
      }
    }
  };

  const prepared = new Map<string, draV1.Device[]>();
  const writeSpec = (uid: string, result: readonly draV1.Device[]): void =>
    writeFileSync(
      join(cdiDir, `${driver}-${uid}.json`),
      JSON.stringify({
        cdiVersion: '0.6.0',
        kind: `${driver}/gpu`,
        devices: result.flatMap((d) =>
          d.cdiDeviceIds.map((id) => ({
            name: id.split('=')[1] ?? id,
            containerEdits: { env: [`GPU=${d.deviceName}`] },
          })),
        ),
      }),
      { mode: 0o640 },
    );
  let rebooted = false;
  let calls = 0;
  const prepareOne = async (claim: draV1.Claim): Promise<draV1.NodePrepareResourceResponse> => {
    calls += 1;
    const known = prepared.get(claim.uid);
    if (known !== undefined && fault !== 'not-idempotent') {
      // After a reboot the CDI directory is empty: the claims of the checkpoint get their specs again.
      if (rebooted && fault !== 'no-cdi-after-reboot') writeSpec(claim.uid, known);
      return { devices: known, error: '' };
    }
    let object: Claim;
    try {
      object = (await api(
        'GET',
        `/apis/resource.k8s.io/v1/namespaces/${claim.namespace}/resourceclaims/${claim.name}`,
      )) as unknown as Claim;
    } catch (err) {
      return { devices: [], error: `get ResourceClaim ${claim.namespace}/${claim.name}: ${String(err)}` };
    }
    if (object.metadata.uid !== claim.uid && fault !== 'ignores-uid') {
      return {
        devices: [],
        error: `ResourceClaim ${claim.name} has UID ${object.metadata.uid}, not ${claim.uid}`,
      };
    }
    // It takes no configuration: an opaque entry for it is one it cannot understand, so the claim fails.
    const config = (object.status?.allocation?.devices?.config ?? []).find(
      (c) => c.opaque?.driver === driver,
    );
    if (config !== undefined && fault !== 'accepts-any-config') {
      const { apiVersion, kind } = config.opaque?.parameters ?? {};
      return { devices: [], error: `driver ${driver} takes no opaque configuration (${apiVersion} ${kind})` };
    }
    const results = (object.status?.allocation?.devices?.results ?? []).filter((r) => r.driver === driver);
    const cdiName = (device: string): string =>
      fault === 'bad-cdi-ids'
        ? device
        : `${driver}/gpu=${device}${fault === 'not-idempotent' ? `-${calls}` : ''}`;
    const result = results.map((r) => ({
      // The base request name, as upstream's helper (`main/sub` of a firstAvailable list is `main`).
      requestNames: [fault === 'full-request-names' ? r.request : (r.request.split('/')[0] ?? r.request)],
      poolName: r.pool,
      deviceName: r.device,
      cdiDeviceIds: [cdiName(r.device)],
    }));
    writeSpec(claim.uid, result);
    prepared.set(claim.uid, result);
    return { devices: result, error: '' };
  };

  const fake: FakeDraDriver = await createFakeDraDriver({
    registryDir: options.registryDir,
    pluginDir: join(options.root, 'plugin'),
    driver,
    supportedVersions: options.supportedVersions ?? [
      'v1.DRAPlugin',
      'v1beta1.DRAPlugin',
      'v1.DRAResourceHealth',
      'v1alpha1.DRAResourceHealth',
    ],
    prepare: async (request) => {
      const claims: Record<string, draV1.NodePrepareResourceResponse> = {};
      for (const claim of request.claims) claims[claim.uid] = await prepareOne(claim);
      return { claims };
    },
    unprepare: (request) => ({
      claims: Object.fromEntries(
        request.claims.map((claim) => {
          const known = prepared.delete(claim.uid);
          rmSync(join(cdiDir, `${driver}-${claim.uid}.json`), { force: true });
          const error =
            !known && fault === 'unknown-unprepare-error' ? `claim ${claim.uid} is not prepared` : '';
          return [claim.uid, { error }];
        }),
      ),
    }),
  });
  // Every health stream gets the full device list when it opens.
  let stopped = false;
  const serveHealth = async (): Promise<void> => {
    while (!stopped) {
      await fake.nextStream();
      if (stopped) return;
      fake.sendHealth(
        devices.map((d) => ({ pool: options.nodeName, device: d.name, health: 'HEALTHY', at: Date.now() })),
      );
    }
  };
  void serveHealth();
  await publish();
  const watched = watch().catch(() => undefined);
  return {
    driver,
    cdiDir,
    restart: async () => {
      await fake.stopPluginServer();
      await fake.startPluginServer();
    },
    reboot: async () => {
      await fake.stopPluginServer();
      for (const name of readdirSync(cdiDir)) rmSync(join(cdiDir, name), { recursive: true, force: true });
      rebooted = true;
      await fake.startPluginServer();
    },
    stop: async () => {
      stopped = true;
      watching.abort();
      await watched;
      await fake.stop();
    },
  };
}
