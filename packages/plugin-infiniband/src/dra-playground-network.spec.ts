import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  runClaimForStatus,
  startPlaygroundDriver,
  type NetworkClaimJson,
  type PlaygroundDriver,
} from '@kdp/dra/testing';
import { infinibandPlugin } from './plugin';
import { createRdmaMachine, fixtureHardwareAddress } from './testing/rdma-machine';

jest.setTimeout(120_000);

const DRIVER = 'infiniband.kdp.dev';

// Issue 28, network device status (KEP 4817) for InfiniBand: an exclusive HCA claimed in the DRA playground; the
// claim read back with real kubectl names the HCA's IPoIB interface and its 20-byte hardware address.
describe('infiniband-device-plugin serve --mode dra: network status in the DRA playground', () => {
  let dir: string;
  let fx: ReturnType<typeof createRdmaMachine>;
  let setup: PlaygroundDriver | undefined;
  let claim: NetworkClaimJson;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kdp-ib-net-'));
    fx = createRdmaMachine();
    setup = await startPlaygroundDriver({
      plugin: infinibandPlugin,
      driver: DRIVER,
      dir,
      flags: ['--sysfs-root', fx.root, '--dev-root', fx.devRoot, '--poll-interval', '1h'],
      devRoot: fx.devRoot,
    });
    claim = await runClaimForStatus(setup, {
      driver: DRIVER,
      name: 'hca',
      selector: `device.attributes["${DRIVER}"].ibdev == "mlx4_0"`,
    });
  });
  afterAll(async () => {
    await setup?.stop();
    fx.remove();
    rmSync(dir, { recursive: true, force: true });
  });

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
