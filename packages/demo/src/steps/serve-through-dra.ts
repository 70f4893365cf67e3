import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ContainerDevices, KubeObject } from '@kdp/kubelet-sim';
import { formatTable } from '../format-table';
import { now } from '../plugin-processes';
import { waitUntil } from '../wait-until';
import { logTail, ms, type DemoContext } from './demo-context';
import { untilPublished, untilStored, type DraSide } from './dra-side';

const namespace = 'default';
const podName = 'dra-serial';
const claimName = 'dra-serial-port';

/** What a container got from its claims' CDI devices, as the playground's kubelet resolved them. */
function describeDevices(devices: ContainerDevices): string[] {
  const kinds: [string, string[]][] = [
    ['env', [...devices.env]],
    [
      'devices',
      [
        devices.deviceNodes
          .map((d) => `${d.hostPath}${d.path === d.hostPath ? '' : ` → ${d.path}`}`)
          .join(', '),
      ].filter((line) => line !== ''),
    ],
    [
      'mounts',
      devices.mounts.map(
        (m) => `${m.hostPath} → ${m.containerPath}${m.options?.includes('ro') === true ? ' (ro)' : ''}`,
      ),
    ],
    ['cdi', [...devices.cdiDevices]],
  ];
  return kinds.flatMap(([kind, values]) => values.map((v, i) => `${(i === 0 ? kind : '').padEnd(11)}  ${v}`));
}

/** The CEL selector of an FTDI serial adapter (0403:6001) whose serial is none of `held`. */
export function serialSelector(driver: string, held: readonly string[]): string {
  const attr = (name: string): string => `device.attributes["${driver}"].${name}`;
  return [
    `${attr('vendor')} == "0403"`,
    `${attr('product')} == "6001"`,
    ...held.map((serial) => `${attr('serial')} != "${serial}"`),
  ].join(' && ');
}

/**
 * The manifests the demo creates: a DeviceClass selecting the driver by CEL, a ResourceClaim whose request
 * `serial` has the CEL `selector`, and a pod whose container names that request.
 */
export function draManifests(driver: string, selector: string): KubeObject[] {
  return [
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: driver },
      spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }] },
    },
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: claimName, namespace },
      spec: {
        devices: {
          requests: [
            {
              name: 'serial',
              exactly: { deviceClassName: driver, selectors: [{ cel: { expression: selector } }] },
            },
          ],
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: podName, namespace },
      spec: {
        resourceClaims: [{ name: 'serial', resourceClaimName: claimName }],
        containers: [
          {
            name: 'main',
            image: 'registry.k8s.io/pause:3.10',
            resources: { claims: [{ name: 'serial', request: 'serial' }] },
          },
        ],
      },
    },
  ];
}

interface ClaimStatus {
  readonly allocation?: {
    readonly devices?: {
      readonly results?: ReadonlyArray<{ readonly pool: string; readonly device: string }>;
    };
  };
  readonly reservedFor?: ReadonlyArray<{ readonly name: string }>;
}

const plural = (kind: string): string => `${kind.toLowerCase()}${kind.endsWith('s') ? 'es' : 's'}`;

/**
 * The USB family through DRA, beside its device plugin, on kubelet-sim's DRA playground: waits for `usb.kdp.dev`
 * to register through the playground node's plugin watcher and publish a pool of ResourceSlices per resource,
 * prints them, then creates through the API server a DeviceClass, a ResourceClaim with a CEL selector and a pod
 * whose container names the claim's request (the manifests are written beside the kubeconfig, with the
 * `kubectl` commands that do the same); shows the scheduler's allocation, the pod Running with its container's
 * CDI devices as the kubelet resolved them, then deletes the pod (the claim is unprepared), the claim and the class.
 */
export async function serveThroughDra(ctx: DemoContext, dra: DraSide): Promise<void> {
  const { view } = ctx;
  const { sim, store } = dra;
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

  // The serial adapters the device-plugin pods hold: the claim's CEL selector leaves them out.
  const resource = 'example.com/serial';
  const held = (pools.get(`${dra.nodeName}/${resource}`) ?? [])
    .filter((d) => ctx.holders.has(`${resource} ${d.attributes?.['id']?.string ?? ''}`))
    .map((d) => d.attributes?.['serial']?.string ?? '');
  const selector = serialSelector(dra.driver, held);
  const manifests = draManifests(dra.driver, selector);
  const manifestFile = join(dirname(dra.kubeconfig), 'dra-serial.yaml');
  writeFileSync(manifestFile, manifests.map((m) => JSON.stringify(m, null, 2)).join('\n---\n') + '\n');
  const kubectl = `kubectl --kubeconfig ${dra.kubeconfig}`;
  view.log(
    `  Created through the API server (as \`${kubectl} create -f ${manifestFile}\` does):`,
    `    DeviceClass ${dra.driver}, ResourceClaim ${claimName} (request "serial": CEL ${selector}), pod ${podName} (container main names request serial)`,
  );
  const start = now();
  for (const manifest of manifests)
    store.create(plural(manifest.kind ?? ''), manifest, manifest.metadata.namespace);

  const phase = (): string | undefined => {
    try {
      return (store.get('pods', podName, namespace)['status'] as { phase?: string } | undefined)?.phase;
    } catch {
      return undefined;
    }
  };
  await untilStored(
    dra,
    'pods',
    () => (phase() === 'Running' ? true : undefined),
    ctx.timeoutMs,
    () =>
      `pod ${podName} is not Running within ${ctx.timeoutMs / 1000} s (phase ${phase() ?? 'none'}); the last lines of the driver's log:\n${logTail(dra.process)}`,
  );
  const claim = store.get('resourceclaims', claimName, namespace);
  const status = claim['status'] as ClaimStatus | undefined;
  const results = status?.allocation?.devices?.results ?? [];
  view.log(
    `  the scheduler allocated ${results.map((r) => `${r.pool}/${r.device}`).join(', ')} (CEL evaluated against the slices) ` +
      `and reserved the claim for pod ${(status?.reservedFor ?? []).map((r) => r.name).join(', ')}`,
  );
  const devices = dra.kubelet.containerDevices(namespace, podName) ?? [];
  view.log(
    `  pod ${podName}: Running ${ms(now() - start)} after its creation, its claim prepared by the kubelet (NodePrepareResources);`,
    `  container main gets these CDI devices:`,
    ...devices.flatMap((c) => describeDevices(c)).map((line) => `      ${line}`),
  );
  const uid = claim.metadata.uid ?? '';
  const unprepared = sim.waitFor(
    'dra-unprepared',
    (e) => e.pod === podName && e.claims.some((c) => c.uid === uid),
    ctx.timeoutMs,
  );
  const deleted = now();
  store.delete('pods', podName, { namespace });
  await unprepared;
  const left = readdirSync(dra.cdiDir).filter((file) => file.includes(uid));
  view.log(
    `  pod ${podName} deleted: claim ${claimName} unprepared in ${ms(now() - deleted)}, ` +
      (left.length === 0 ? 'its CDI spec removed' : `its CDI spec still there: ${left.join(', ')}`),
  );
  // The claim and the class go too, so the same manifests can be created again with kubectl.
  store.delete('resourceclaims', claimName, { namespace });
  store.delete('deviceclasses', dra.driver);
  view.log(
    `  ResourceClaim ${claimName} and DeviceClass ${dra.driver} deleted. The same with kubectl, while the demo runs:`,
    `    ${kubectl} get resourceslices`,
    `    ${kubectl} create -f ${manifestFile}`,
    `    ${kubectl} wait --for=condition=Ready pod/${podName}`,
    `    ${kubectl} get resourceclaim ${claimName} -o yaml`,
    `    ${kubectl} get pod ${podName} -o yaml   (annotation kubelet-sim.kdp.dev/container-devices)`,
    `    ${kubectl} delete -f ${manifestFile}`,
  );
}
