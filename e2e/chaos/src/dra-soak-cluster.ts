import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_NAMES } from '@kdp/demo';
import { ContainerDevicesAnnotation, type DraPlayground } from '@kdp/kubelet-sim';

/** The DRA driver of a plugin: `<plugin>.kdp.dev`. */
export const driverOf = (plugin: string): string => `${plugin}.kdp.dev`;

/** The five drivers of the all-in-one process. */
export const DRA_DRIVERS: readonly string[] = PLUGIN_NAMES.map(driverOf);

interface Metadata {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

interface SliceObject {
  readonly spec?: {
    readonly driver?: string;
    readonly nodeName?: string;
    readonly devices?: readonly unknown[];
  };
}

interface ClaimObject {
  readonly metadata: Metadata;
  readonly status?: {
    readonly allocation?: {
      readonly devices?: {
        readonly results?: ReadonlyArray<{ driver: string; pool: string; device: string }>;
      };
    };
  };
}

interface PodObject {
  readonly metadata: Metadata;
  readonly status?: {
    readonly phase?: string;
    readonly conditions?: ReadonlyArray<{ type: string; status: string; message?: string }>;
  };
}

/**
 * The DeviceClass of each driver (a CEL selector on `device.driver`) and a ResourceClaimTemplate per driver whose
 * one request takes a device of that class with a CEL selector of its own.
 */
export function createSoakClasses(playground: DraPlayground): void {
  for (const driver of DRA_DRIVERS) {
    playground.store.create('deviceclasses', {
      metadata: { name: driver },
      spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
    });
    playground.store.create(
      'resourceclaimtemplates',
      {
        metadata: { name: `soak-${driver}`, namespace: 'default' },
        spec: {
          spec: {
            devices: {
              requests: [
                {
                  name: 'dev',
                  exactly: {
                    deviceClassName: driver,
                    count: 1,
                    selectors: [{ cel: { expression: 'device.driver.endsWith(".kdp.dev")' } }],
                  },
                },
              ],
            },
          },
        },
      },
      'default',
    );
  }
}

/** A pod with one container naming the claim generated from `driver`'s template. */
export function createSoakPod(playground: DraPlayground, name: string, driver: string): void {
  playground.store.create(
    'pods',
    {
      metadata: { name, namespace: 'default' },
      spec: {
        resourceClaims: [{ name: 'dev', resourceClaimTemplateName: `soak-${driver}` }],
        containers: [
          { name: 'main', image: 'registry.k8s.io/pause:3.10', resources: { claims: [{ name: 'dev' }] } },
        ],
      },
    },
    'default',
  );
}

/** How many devices each driver publishes for `node` now. */
export function publishedDevices(playground: DraPlayground, node: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of playground.store.list('resourceslices').items as SliceObject[]) {
    if (item.spec?.nodeName !== node || item.spec.driver === undefined) continue;
    counts.set(item.spec.driver, (counts.get(item.spec.driver) ?? 0) + (item.spec.devices?.length ?? 0));
  }
  return counts;
}

/** The pods of `names` not Running with their container's devices: `name: phase (why not scheduled)`. */
export function podsNotRunning(playground: DraPlayground, names: Iterable<string>): string[] {
  const pods = new Map(
    (playground.store.list('pods').items as PodObject[]).map((pod) => [pod.metadata.name ?? '', pod]),
  );
  const waiting: string[] = [];
  for (const name of names) {
    const pod = pods.get(name);
    const devices = JSON.parse(pod?.metadata.annotations?.[ContainerDevicesAnnotation] ?? '[]') as Array<{
      cdiDevices?: readonly string[];
    }>;
    const running = pod?.status?.phase === 'Running' && (devices[0]?.cdiDevices?.length ?? 0) > 0;
    if (running) continue;
    const unscheduled = pod?.status?.conditions?.find(
      (c) => c.type === 'PodScheduled' && c.status === 'False',
    );
    const why = unscheduled?.message === undefined ? '' : ` (${unscheduled.message})`;
    waiting.push(`${name}: ${pod === undefined ? 'gone' : (pod.status?.phase ?? 'no phase')}${why}`);
  }
  return waiting;
}

/** `driver/pool/device` held by two claims' allocations at once, each `device: claim, claim`. */
export function doublyAllocated(playground: DraPlayground): string[] {
  const holders = new Map<string, string[]>();
  for (const claim of playground.store.list('resourceclaims').items as ClaimObject[])
    for (const r of claim.status?.allocation?.devices?.results ?? []) {
      const key = `${r.driver}/${r.pool}/${r.device}`;
      holders.set(key, [...(holders.get(key) ?? []), claim.metadata.name ?? '?']);
    }
  return [...holders]
    .filter(([, claims]) => claims.length > 1)
    .map(([key, claims]) => `${key}: ${claims.join(', ')}`);
}

interface CheckpointFile {
  readonly data?: {
    readonly bootId?: string;
    readonly claims?: Readonly<
      Record<string, { readonly devices?: ReadonlyArray<{ poolName: string; deviceName: string }> }>
    >;
  };
}

/**
 * Devices prepared for two claims at once in the drivers' checkpoints (`<draPluginsDir>/<driver>/checkpoint.json`),
 * `driver/pool/device: uid, uid`. A checkpoint of another boot is skipped, as the driver discards it.
 */
export function readCheckpoints(draPluginsDir: string, bootId: string): string[] {
  const doubles: string[] = [];
  for (const driver of DRA_DRIVERS) {
    const path = join(draPluginsDir, driver, 'checkpoint.json');
    if (!existsSync(path)) continue;
    let file: CheckpointFile;
    try {
      file = JSON.parse(readFileSync(path, 'utf8')) as CheckpointFile;
    } catch {
      continue; // being replaced; the next read sees the whole file
    }
    if (file.data?.bootId !== bootId) continue;
    const holders = new Map<string, string[]>();
    for (const [uid, record] of Object.entries(file.data.claims ?? {}))
      for (const d of record.devices ?? []) {
        const key = `${driver}/${d.poolName}/${d.deviceName}`;
        holders.set(key, [...(holders.get(key) ?? []), uid]);
      }
    for (const [key, uids] of holders) if (uids.length > 1) doubles.push(`${key}: ${uids.join(', ')}`);
  }
  return doubles;
}
