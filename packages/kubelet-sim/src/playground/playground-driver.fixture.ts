import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { draV1 } from '@kdp/api';
import { createDraApiClient, type DraApiServerConnection } from '../dra/dra-api-client';
import { createFakeDraDriver, type FakeDraDriver } from '../dra/fake-dra-driver.fixture';

/** One device of the playground driver: a name and its `model` attribute. */
export interface PlaygroundDevice {
  readonly name: string;
  readonly model: string;
}

/** Options of {@link startPlaygroundDriver}. */
export interface PlaygroundDriverOptions {
  readonly driver: string;
  readonly nodeName: string;
  /** The node's plugin-watcher directory. */
  readonly registryDir: string;
  /** Where its DRA socket lives. */
  readonly pluginDir: string;
  readonly cdiDir: string;
  /** The node's /dev: a file per device is created there. */
  readonly devRoot: string;
  readonly api: DraApiServerConnection;
  readonly devices: readonly PlaygroundDevice[];
  /** Publishes the node's ResourceSlice (through the store or kubectl). */
  readonly publish: (slice: Record<string, unknown>) => Promise<void> | void;
}

interface AllocatedClaim {
  readonly status?: {
    readonly allocation?: {
      readonly devices?: {
        readonly results?: ReadonlyArray<{ driver: string; pool: string; device: string; request: string }>;
      };
    };
  };
}

/**
 * A small DRA driver for playground tests: publishes one slice for its node, and prepares a claim by reading
 * its allocation from the API server, returning each device with its base request name (a `firstAvailable`
 * subrequest stripped, as upstream's helper does) and writing a CDI spec with one device node and one env
 * variable per device.
 */
export async function startPlaygroundDriver(options: PlaygroundDriverOptions): Promise<FakeDraDriver> {
  const { driver, nodeName } = options;
  const kind = `k8s.${driver}/device`;
  const envName = (device: string): string => `DEVICE_${device.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
  mkdirSync(options.devRoot, { recursive: true });
  mkdirSync(options.cdiDir, { recursive: true });
  for (const d of options.devices) writeFileSync(join(options.devRoot, d.name), '');
  const api = createDraApiClient(options.api);
  const prepareClaim = async (claim: draV1.Claim): Promise<draV1.NodePrepareResourceResponse> => {
    const object = (await api.getClaim(claim.namespace, claim.name)) as unknown as AllocatedClaim;
    const results = (object.status?.allocation?.devices?.results ?? []).filter((r) => r.driver === driver);
    writeFileSync(
      join(options.cdiDir, `${driver}-${claim.uid}.json`),
      JSON.stringify({
        cdiVersion: '0.6.0',
        kind,
        devices: results.map((r) => ({
          name: `${claim.uid}-${r.device}`,
          containerEdits: { env: [`${envName(r.device)}=1`], deviceNodes: [{ path: `/dev/${r.device}` }] },
        })),
      }),
    );
    return {
      error: '',
      devices: results.map((r) => ({
        requestNames: [r.request.split('/')[0] ?? r.request],
        poolName: r.pool,
        deviceName: r.device,
        cdiDeviceIds: [`${kind}=${claim.uid}-${r.device}`],
      })),
    };
  };
  const fake = await createFakeDraDriver({
    registryDir: options.registryDir,
    pluginDir: options.pluginDir,
    driver,
    prepare: async (request) => ({
      claims: Object.fromEntries(
        await Promise.all(request.claims.map(async (c) => [c.uid, await prepareClaim(c)] as const)),
      ),
    }),
    unprepare: (request) => {
      for (const c of request.claims)
        rmSync(join(options.cdiDir, `${driver}-${c.uid}.json`), { force: true });
      return { claims: Object.fromEntries(request.claims.map((c) => [c.uid, { error: '' }])) };
    },
  });
  await options.publish({
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: `${nodeName}-${driver}` },
    spec: {
      driver,
      nodeName,
      pool: { name: nodeName, generation: 1, resourceSliceCount: 1 },
      devices: options.devices.map((d) => ({
        name: d.name,
        attributes: { model: { string: d.model } },
      })),
    },
  });
  return fake;
}
