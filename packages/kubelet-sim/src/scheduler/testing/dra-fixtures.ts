import type {
  DeviceClass,
  ExactRequest,
  NodeInfo,
  ResourceClaim,
  ResourceSlice,
  SliceDevice,
} from '../dra-types';

// Small builders of resource.k8s.io/v1 objects for the scheduler's specs.

/** A node with labels. */
export const fixtureNode = (name: string, labels: Record<string, string> = {}): NodeInfo => ({
  metadata: { name, labels },
});

/** A GPU-like device with a model and an index. */
export const gpuDevice = (name: string, extra: Partial<SliceDevice> = {}): SliceDevice => ({
  name,
  attributes: { model: { string: 'A100' }, index: { int: Number(name.replace(/\D/g, '') || 0) } },
  capacity: { memory: { value: '40Gi' } },
  ...extra,
});

/** A slice of `driver`'s pool on a node (or `where` instead). */
export function fixtureSlice(
  name: string,
  devices: SliceDevice[],
  options: {
    driver?: string;
    pool?: string;
    node?: string;
    generation?: number;
    count?: number;
    where?: Partial<ResourceSlice['spec']>;
  } = {},
): ResourceSlice {
  const node = options.node ?? 'node-a';
  return {
    metadata: { name },
    spec: {
      driver: options.driver ?? 'gpu.example.com',
      pool: {
        name: options.pool ?? node,
        generation: options.generation ?? 1,
        resourceSliceCount: options.count ?? 1,
      },
      ...(options.where ?? { nodeName: node }),
      devices,
    },
  };
}

/** A DeviceClass selecting `driver`'s devices. */
export const fixtureClass = (
  name: string,
  driver = 'gpu.example.com',
  extra: DeviceClass['spec'] = {},
): DeviceClass => ({
  metadata: { name },
  spec: { selectors: [{ cel: { expression: `device.driver == "${driver}"` } }], ...extra },
});

/** A claim with one `exactly` request per entry. */
export function fixtureClaim(
  name: string,
  requests: Record<string, Partial<ExactRequest>>,
  devices: Partial<NonNullable<ResourceClaim['spec']['devices']>> = {},
): ResourceClaim {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      devices: {
        requests: Object.entries(requests).map(([req, spec]) => ({
          name: req,
          exactly: { deviceClassName: 'gpu', ...spec },
        })),
        ...devices,
      },
    },
  };
}
