import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContainerAllocateResponse } from '@kdp/api';
import type { KubeObject } from '@kdp/kubelet-sim';
import { formatTable } from '../format-table';
import { now } from '../plugin-processes';
import { waitUntil } from '../wait-until';
import { describeAllocation } from './admit-sample-pods';
import { logTail, ms, type DemoContext } from './demo-context';
import { describePrepared, untilPublished, type DraPod, type DraSide } from './dra-side';

/** What a container receives from the claim's CDI devices: their edits, read from the spec files in `cdiDir`. */
function cdiResponse(cdiDir: string, ids: readonly string[]): ContainerAllocateResponse {
  type Edits = {
    env?: string[];
    deviceNodes?: { path: string; hostPath?: string; permissions?: string }[];
    mounts?: { hostPath: string; containerPath: string; options?: string[] }[];
  };
  const edits = new Map<string, Edits[]>();
  for (const file of readdirSync(cdiDir).filter((name) => name.endsWith('.json'))) {
    const spec = JSON.parse(readFileSync(join(cdiDir, file), 'utf8')) as {
      kind: string;
      containerEdits?: Edits;
      devices?: { name: string; containerEdits: Edits }[];
    };
    for (const device of spec.devices ?? [])
      edits.set(`${spec.kind}=${device.name}`, [spec.containerEdits ?? {}, device.containerEdits]);
  }
  const all = ids.flatMap((id) => {
    const found = edits.get(id);
    if (found === undefined) throw new Error(`CDI device ${id} is not defined in ${cdiDir}`);
    return found;
  });
  return {
    envs: Object.fromEntries(
      all
        .flatMap((e) => e.env ?? [])
        .map((entry) => [entry.split('=')[0] ?? '', entry.slice(entry.indexOf('=') + 1)]),
    ),
    devices: all
      .flatMap((e) => e.deviceNodes ?? [])
      .map((d) => ({
        containerPath: d.path,
        hostPath: d.hostPath ?? d.path,
        permissions: d.permissions ?? 'rwm',
      })),
    mounts: all
      .flatMap((e) => e.mounts ?? [])
      .map((m) => ({
        containerPath: m.containerPath,
        hostPath: m.hostPath,
        readOnly: m.options?.includes('ro') === true,
      })),
    annotations: {},
    cdiDevices: ids.map((name) => ({ name })),
  };
}

/**
 * The USB family through DRA, beside its device plugin: waits for `usb.kdp.dev` to register through the plugin
 * watcher and publish a pool of ResourceSlices per resource, prints them, allocates one device not held by a
 * device-plugin pod to a new ResourceClaim (as the scheduler would), has the kubelet prepare it for a pod, and
 * prints the CDI devices the container gets with their edits.
 */
export async function serveThroughDra(ctx: DemoContext, dra: DraSide): Promise<DraPod> {
  const { sim, view } = ctx;
  const registered = await waitUntil(
    sim,
    () => sim.draState().drivers.find((d) => d.driver === dra.driver && d.endpoints.length > 0),
    ctx.timeoutMs,
    () =>
      `${dra.driver} did not register within ${ctx.timeoutMs / 1000} s; the last lines of its log:\n${logTail(dra.process)}`,
  );
  const pools = await untilPublished(ctx, dra, 'published no complete ResourceSlices');
  const endpoint = registered.endpoints[0];
  view.log(
    `  ${dra.driver} registered through the plugin watcher ` +
      `(${endpoint?.service ?? '?'}${endpoint?.healthService === undefined ? '' : ` + ${endpoint.healthService}`}) and published ` +
      `${pools.size} pools, ${[...pools.values()].flat().length} devices, ${ms(now() - dra.process.startedAt)} after its start`,
  );
  const rows = [...pools].flatMap(([pool, devices]) =>
    devices.map((d) => {
      const attr = (name: string): string => d.attributes?.[name]?.string ?? '';
      return [pool, d.name, attr('id'), `${attr('vendor')}:${attr('product')}`, attr('serial')];
    }),
  );
  view.log(
    ...formatTable([['POOL', 'DEVICE', 'ID', 'VENDOR:PRODUCT', 'SERIAL'], ...rows]).map((l) => `    ${l}`),
  );

  // The scheduler's part, by hand: a device of the serial pool that no device-plugin pod holds.
  const resource = 'example.com/serial';
  const pool = `${dra.nodeName}/${resource}`;
  const device = pools
    .get(pool)
    ?.find((d) => !ctx.holders.has(`${resource} ${d.attributes?.['id']?.string ?? ''}`));
  if (device === undefined) throw new Error(`${dra.driver}: no free device in pool ${pool}`);
  const pod = { name: 'dra-serial', uid: randomUUID() };
  const claim = 'dra-serial-port';
  allocateClaim(dra, { claim, pod, pool, device: device.name });
  view.log(
    `  ResourceClaim ${claim}: request "serial" of DeviceClass ${dra.driver}, allocated ${pool}/${device.name} for pod ${pod.name}`,
  );
  const start = now();
  const prepared = await sim.prepareClaims(pod, [claim]);
  const ids = prepared.flatMap((c) => c.devices.flatMap((d) => d.cdiDeviceIds));
  view.log(
    `  pod ${pod.name}: prepared by the kubelet (NodePrepareResources) in ${ms(now() - start)}; its container gets these CDI devices:`,
    ...describeAllocation(cdiResponse(dra.cdiDir, ids)).map((line) => `      ${line}`),
  );
  return { pod, claim, uid: prepared[0]?.uid ?? '?', prepared: describePrepared(prepared) };
}

function allocateClaim(
  dra: DraSide,
  { claim, pod, pool, device }: { claim: string; pod: DraPod['pod']; pool: string; device: string },
): void {
  const created = dra.api.store.create(
    'resourceclaims',
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: claim },
      spec: { devices: { requests: [{ name: 'serial', exactly: { deviceClassName: dra.driver } }] } },
    },
    'default',
  );
  const status: KubeObject = {
    ...created,
    status: {
      allocation: {
        devices: { results: [{ request: 'serial', driver: dra.driver, pool, device }] },
        nodeSelector: {
          nodeSelectorTerms: [
            { matchFields: [{ key: 'metadata.name', operator: 'In', values: [dra.nodeName] }] },
          ],
        },
      },
      reservedFor: [{ resource: 'pods', name: pod.name, uid: pod.uid }],
    },
  };
  dra.api.store.update('resourceclaims', status, { namespace: 'default', subresource: 'status' });
}
