import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSharedDevice, createPlaygroundSession, kubectl } from '@kdp/dra/testing';
import { infinibandPlugin } from './plugin';
import { rdmaPlaygroundMachine } from './testing/playground-machine';

jest.setTimeout(120_000);

const DRIVER = 'infiniband.kdp.dev';
const CONFIG = JSON.stringify({
  configList: [
    { resourceName: 'hca_shared', rdmaHcaMax: 2, selectors: { vendors: ['15b3'], deviceIDs: ['1017'] } },
  ],
});

// Issue 28, shared capacity (KEP 5075) for InfiniBand: a shared-mode resource (k8s-rdma-shared-dev-plugin's
// rdmaHcaMax) is one device under DRA that at most rdmaHcaMax claims hold, each one share.
const session = createPlaygroundSession({
  plugin: infinibandPlugin,
  driver: DRIVER,
  machine: (dir) => {
    const config = join(dir, 'config.json');
    writeFileSync(config, CONFIG);
    return rdmaPlaygroundMachine(['--config', config]);
  },
});

describe('infiniband-device-plugin serve --mode dra: shared HCAs by capacity in the DRA playground', () => {
  beforeAll(() => session.start());
  afterAll(() => session.stop());

  it('publishes the shared HCAs once, allowing multiple allocations, rdmaHcaMax shares as capacity', async () => {
    const slices = JSON.parse(
      await kubectl(session.started().setup.kubeconfig, ['get', 'resourceslices', '-o', 'json']),
    ) as {
      items: { spec: { devices?: Record<string, unknown>[] } }[];
    };
    const devices = slices.items.flatMap((s) => s.spec.devices ?? []);
    expect(devices).toHaveLength(1);
    expect(devices[0]).toMatchObject({
      name: 'hcas',
      allowMultipleAllocations: true,
      capacity: { shares: { value: '2', requestPolicy: { default: '1' } } },
    });
  });

  it('prepares two claims holding the shared HCAs (distinct shares and CDI IDs); a third stays Pending', async () => {
    const results = await checkSharedDevice(session.started().setup, {
      driver: DRIVER,
      name: 'ib-share',
      requests: { shares: '1' },
      fits: 2,
      excess: { shares: '1' },
    });
    expect(results.map((r) => [r.device, r.consumedCapacity])).toEqual([
      ['hcas', { shares: '1' }],
      ['hcas', { shares: '1' }],
    ]);
  });
});
