import type { ContainerAllocateResponse } from '@kdp/api';
import { ms, type DemoContext } from './demo-context';
import { now } from '../plugin-processes';

const MAX_VALUE = 150;

/** The sample pod's name for a resource: `nvidia.com/gpu` → `nvidia-gpu`. */
export function samplePodName(resource: string): string {
  const [domain = '', name = ''] = resource.split('/');
  const label = domain.split('.')[0] ?? domain;
  return `${label}-${name}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 24)
    .replace(/-+$/, '');
}

/** What a container receives from one Allocate, one line per kind (only the kinds present). */
export function describeAllocation(response: ContainerAllocateResponse): string[] {
  const cut = (text: string): string => (text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text);
  const kinds: [string, string[]][] = [
    ['env', Object.entries(response.envs).map(([key, value]) => cut(`${key}=${value}`))],
    [
      'devices',
      response.devices.map(
        (d) =>
          `${d.hostPath}${d.containerPath === d.hostPath ? '' : ` → ${d.containerPath}`} (${d.permissions})`,
      ),
    ],
    ['mounts', response.mounts.map((m) => `${m.hostPath} → ${m.containerPath}${m.readOnly ? ' (ro)' : ''}`)],
    ['annotations', Object.entries(response.annotations).map(([key, value]) => cut(`${key}=${value}`))],
    ['cdi', response.cdiDevices.map((d) => d.name)],
  ];
  const lines = kinds
    .filter(([, values]) => values.length > 0)
    .flatMap(([kind, values]) =>
      kind === 'devices'
        ? [`${kind.padEnd(11)}  ${values.join(', ')}`]
        : values.map((v, i) => `${(i === 0 ? kind : '').padEnd(11)}  ${v}`),
    );
  return lines.length > 0 ? lines : ['(an empty response)'];
}

/**
 * Admits one sample pod per resource (one device for its container `main`) through kubelet-sim, which runs the
 * kubelet's admission (GetPreferredAllocation, Allocate, PreStartContainer where asked), and prints what the
 * container receives: env, device nodes, mounts, annotations and CDI names.
 */
export async function admitSamplePods(ctx: DemoContext): Promise<void> {
  for (const { resource } of ctx.node.expected) {
    const pod = samplePodName(resource);
    const start = now();
    const { deviceIds, response } = await ctx.sim.admit({ pod, container: 'main', resource, count: 1 });
    const took = now() - start;
    for (const id of deviceIds) ctx.holders.set(`${resource} ${id}`, pod);
    const numa = deviceIds
      .map((id) =>
        ctx.sim
          .resource(resource)
          ?.devices.find((d) => d.ID === id)
          ?.topology?.nodes.map((n) => n.ID),
      )
      .flat()
      .filter((n) => n !== undefined);
    const where = numa.length > 0 ? ` (NUMA ${[...new Set(numa)].join(',')})` : '';
    ctx.view.log(
      `  pod ${pod}: ${resource} × 1 → ${deviceIds.join(', ')}${where}, admitted in ${ms(took)}`,
      ...describeAllocation(response).map((line) => `      ${line}`),
    );
    ctx.view.refresh();
  }
}
