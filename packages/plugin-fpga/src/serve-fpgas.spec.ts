import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import {
  programmingConfig,
  setFakeMode,
  writeFakeProgrammer,
  type FakeProgrammer,
} from './fake-programmer.fixture';
import { createFpgaFixture, U200, IF_ID, NLB0, NLB3, type FpgaFixture } from './fpga-sysfs.fixture';
import { buildPluginBundle, spawnServe, type ServeProcess } from './plugin-binary.fixture';

const REGION = `fpga.intel.com/region-${IF_ID}`;
const AMD = 'amd.com/xilinx_u200_xdma_201830_1-1542252769';

let build: ReturnType<typeof buildPluginBundle>;
beforeAll(() => (build = buildPluginBundle()), 60_000);
afterAll(() => build.remove());

describe('fpga-device-plugin serve against kubelet-sim', () => {
  let fx: FpgaFixture;
  let fake: FakeProgrammer;
  let sim: KubeletSim;
  let plugin: ServeProcess;
  let afuFile: string;

  beforeAll(async () => {
    fx = createFpgaFixture();
    const { portDir } = fx.addDflCard({
      address: '0000:81:00.0',
      index: 0,
      numaNode: 1,
      interfaceId: IF_ID,
      afuId: NLB0,
    });
    fx.addAlveoCard(U200);
    afuFile = join(fx.root, portDir, 'afu_id');
    fake = writeFakeProgrammer(fx, NLB3);
    const config = join(fx.base, 'fpga.yaml');
    writeFileSync(
      config,
      programmingConfig(fake, afuFile, NLB3, ['pollIntervalMs: 200', 'amd: { includeManagement: true }']),
    );
    const dir = join(fx.base, 'dp');
    mkdirSync(dir);
    sim = await createKubeletSim({ dir });
    const registered = Promise.all(
      [REGION, AMD].map((r) => sim.waitFor('devices', (e) => e.resource === r, 30_000)),
    );
    plugin = spawnServe(build.bundle, {
      sysfsRoot: fx.root,
      devRoot: fx.devRoot,
      devicePluginDir: dir,
      config: config,
    });
    await registered;
  }, 60_000);

  afterAll(async () => {
    const code = await plugin?.stop();
    await sim?.close();
    fx?.remove();
    expect(code).toBe(0);
  }, 30_000);

  it('registers the region resource with PreStartContainer and the AMD resource without it', () => {
    expect(sim.resource(REGION)).toMatchObject({
      options: { preStartRequired: true, getPreferredAllocationAvailable: true },
      healthy: ['region0'],
    });
    expect(sim.resource(AMD)).toMatchObject({
      options: { preStartRequired: false },
      healthy: ['0000:3b:00.1'],
    });
    expect(sim.resource(REGION)?.devices[0]?.topology).toEqual({ nodes: [{ ID: 1 }] });
  });

  it('a pod admission runs the fake programmer once, and not again when the AFU is already loaded', async () => {
    const first = await sim.admit({ pod: 'p1', container: 'c', resource: REGION, count: 1 });
    expect(fake.runs()).toEqual([`${afuFile} ${fake.bitstream}`]);
    // Intel's plugin gives the port node (rw) in region mode; we add envs naming it.
    expect(first.response.devices).toEqual([
      { containerPath: '/dev/dfl-port.0', hostPath: '/dev/dfl-port.0', permissions: 'rw' },
    ]);
    expect(first.response.envs).toEqual({
      KDP_FPGA_DEVICE_IDS: 'region0',
      KDP_FPGA_PORTS: '/dev/dfl-port.0',
      KDP_FPGA_INTERFACE_ID: IF_ID,
      KDP_FPGA_AFU_ID: NLB3,
    });
    sim.release('p1');
    await sim.admit({ pod: 'p2', container: 'c', resource: REGION, count: 1 });
    await sim.startContainer('p2', 'c');
    expect(fake.runs()).toHaveLength(1);
    sim.release('p2');
  }, 60_000);

  it('a failing programmer fails the container start with its exit code and output', async () => {
    writeFileSync(afuFile, `${NLB0}\n`);
    setFakeMode(fx, 'fail');
    await expect(sim.admit({ pod: 'p3', container: 'c', resource: REGION, count: 1 })).rejects.toThrow(
      /PreStartContainer rpc failed with err: .*exited with code 3; output: fpgaconf: bitstream is not compatible/,
    );
    sim.release('p3');
    setFakeMode(fx, 'ok');
  }, 60_000);

  it('AMD Allocate matches Xilinx’s device specs (xclmgmt and render node, rwm)', async () => {
    const admission = await sim.admit({ pod: 'p4', container: 'c', resource: AMD, count: 1 });
    expect(admission.response.devices).toEqual([
      { containerPath: '/dev/xclmgmt15104', hostPath: '/dev/xclmgmt15104', permissions: 'rwm' },
      { containerPath: '/dev/dri/renderD128', hostPath: '/dev/dri/renderD128', permissions: 'rwm' },
    ]);
    expect(admission.response.envs).toMatchObject({
      KDP_FPGA_RENDER_NODES: '/dev/dri/renderD128',
      KDP_FPGA_MGMT_NODES: '/dev/xclmgmt15104',
    });
    sim.release('p4');
  }, 30_000);

  it('a port error makes the region unhealthy and clearing it recovers, well inside a generous bound', async () => {
    const errors = join(afuFile, '..', 'errors', 'errors');
    const started = Date.now();
    const sick = sim.waitFor(
      'devices',
      (e) => e.resource === REGION && e.unhealthy.includes('region0'),
      20_000,
    );
    writeFileSync(errors, '0x1\n');
    await sick;
    const healthy = sim.waitFor(
      'devices',
      (e) => e.resource === REGION && e.healthy.includes('region0'),
      20_000,
    );
    writeFileSync(errors, '0x0\n');
    await healthy;
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);
});
