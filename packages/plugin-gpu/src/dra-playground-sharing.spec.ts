import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSharedDevice, createPlaygroundSession, kubectl } from '@kdp/dra/testing';
import { gpuPlugin } from './plugin';
import { rootFlags } from './testing/fixture-devices';
import { buildNvidiaMachine, NVIDIA_UUIDS } from './testing/machines';

jest.setTimeout(120_000);

const SHARED_GPU = NVIDIA_UUIDS['0000:86:00.0'];

// Issue 28, shared capacity (KEP 5075): the sharing configuration gives one GPU 4 time slices; under DRA it is
// one device several claims hold, each a share of its `timeSlices`.
const session = createPlaygroundSession({
  plugin: gpuPlugin,
  driver: 'gpu.kdp.dev',
  machine: (dir) => {
    const fixture = buildNvidiaMachine();
    const config = join(dir, 'gpu.yaml');
    writeFileSync(
      config,
      `sharing:\n  resources:\n  - name: nvidia.com/gpu\n    replicas: 4\n    devices: ["${SHARED_GPU}"]\n`,
    );
    return {
      flags: [...rootFlags(fixture), '--config', config, '--poll-interval', '1h'],
      devRoot: fixture.devRoot,
      procRoot: fixture.procRoot,
      remove: () => fixture.remove(),
    };
  },
});

describe('gpu-device-plugin serve --mode dra: a time-sliced GPU shared by capacity in the DRA playground', () => {
  beforeAll(() => session.start());
  afterAll(() => session.stop());

  it('publishes the time-sliced GPU once, allowing multiple allocations with its slices as capacity', async () => {
    const slices = JSON.parse(
      await kubectl(session.started().setup.kubeconfig, ['get', 'resourceslices', '-o', 'json']),
    ) as { items: { spec: { devices?: Record<string, unknown>[] } }[] };
    const devices = slices.items.flatMap((s) => s.spec.devices ?? []);
    const shared = devices.filter((d) => d['allowMultipleAllocations'] === true);
    expect(shared).toHaveLength(1);
    expect(shared[0]).toMatchObject({
      attributes: { id: { string: SHARED_GPU } },
      capacity: {
        timeSlices: {
          value: '4',
          requestPolicy: { default: '1', validRange: { min: '1', max: '4', step: '1' } },
        },
      },
    });
    // No replica of it is published on its own.
    expect(devices.filter((d) => JSON.stringify(d).includes(`${SHARED_GPU}::`))).toEqual([]);
  });

  it('prepares three claims sharing the GPU (distinct shares and CDI IDs); a fourth over its slices stays Pending', async () => {
    const results = await checkSharedDevice(session.started().setup, {
      driver: 'gpu.kdp.dev',
      name: 'gpu-share',
      requests: { timeSlices: '1' },
      fits: 3,
      excess: { timeSlices: '2' },
      shareEnv: ['KDP_GPU_TIME_SLICES=1/4', 'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25'],
    });
    expect(results.map((r) => r.consumedCapacity)).toEqual([
      { timeSlices: '1' },
      { timeSlices: '1' },
      { timeSlices: '1' },
    ]);
  });
});
