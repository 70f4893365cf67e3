import { createPlaygroundSession, runClaimForStatus, type NetworkClaimJson } from '@kdp/dra/testing';
import { infinibandPlugin } from './plugin';
import { rdmaPlaygroundMachine } from './testing/playground-machine';
import { fixtureHardwareAddress } from './testing/rdma-machine';

jest.setTimeout(120_000);

const DRIVER = 'infiniband.kdp.dev';

// Issue 28, network device status (KEP 4817) for InfiniBand: an exclusive HCA claimed in the DRA playground; the
// claim read back with real kubectl names the HCA's IPoIB interface and its 20-byte hardware address.
const session = createPlaygroundSession({
  plugin: infinibandPlugin,
  driver: DRIVER,
  machine: () => rdmaPlaygroundMachine(),
});

describe('infiniband-device-plugin serve --mode dra: network status in the DRA playground', () => {
  let claim: NetworkClaimJson;
  beforeAll(async () => {
    await session.start();
    claim = await runClaimForStatus(session.started().setup, {
      driver: DRIVER,
      name: 'hca',
      selector: `device.attributes["${DRIVER}"].ibdev == "mlx4_0"`,
    });
  });
  afterAll(() => session.stop());

  it('writes the HCA’s IPoIB interface and hardware address into the claim’s status.devices', () => {
    const [result] = claim.status?.allocation?.devices.results ?? [];
    expect(claim.status?.devices).toEqual([
      expect.objectContaining({
        driver: DRIVER,
        pool: result?.pool,
        device: result?.device,
        conditions: [expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Prepared' })],
        networkData: { interfaceName: 'ib0', hardwareAddress: fixtureHardwareAddress('ib0', true) },
      }),
    ]);
  });
});
