import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createPlaygroundDriverTest,
  createRefused,
  installClaimConfigPolicy,
  kubectl,
  runClaimPod,
} from '@kdp/dra/testing';
import { envSuffix } from '@kdp/dra';
import { fpgaConfigKind } from './dra/fpga-claim-config';
import { fpgaPlugin } from './plugin';
import { createFpgaFixture, IF_ID, NLB0, NLB3 } from './testing/create-fpga-fixture';
import { programmingConfig, writeFakeProgrammer, type FakeProgrammer } from './testing/fake-programmer';

jest.setTimeout(120_000);

// Issue 28 item 3 for FPGAs: a claim names the bitstream (and AFU) its region must carry; the driver programs it
// at prepare with the region's configured command (the fake programmer), instead of the rule's AFU, and again
// after a reboot. One DFL card in region mode, its rule loading NLB3; the claim asks for NLB0.
let fake: FakeProgrammer;
let afuFile = '';
const test = createPlaygroundDriverTest({
  plugin: fpgaPlugin,
  driver: 'fpga.kdp.dev',
  selector: 'device.attributes["fpga.kdp.dev"].interfaceId == "' + IF_ID + '"',
  machine: () => {
    const fx = createFpgaFixture();
    const { portDir } = fx.addDflCard({
      address: '0000:81:00.0',
      index: 0,
      numaNode: 0,
      interfaceId: IF_ID,
      afuId: NLB3,
    });
    afuFile = join(fx.root, portDir, 'afu_id');
    fake = writeFakeProgrammer(fx, NLB3);
    // The claim's bitstream beside the rule's, in the bitstream directory: the fake loads its content as the AFU.
    writeFileSync(join(fake.bitstreamDir, `${NLB0}.gbs`), `${NLB0}\n`);
    const config = join(fx.base, 'fpga.yaml');
    writeFileSync(config, programmingConfig(fake, afuFile, NLB3));
    return {
      flags: ['--sysfs-root', fx.root, '--dev-root', fx.devRoot, '--config', config, '--poll-interval', '1h'],
      devRoot: fx.devRoot,
      remove: () => fx.remove(),
    };
  },
});

beforeAll(() => test.start());
afterAll(() => test.stop());

const fpgaConfig = (rest: Record<string, unknown>) => ({
  apiVersion: 'fpga.kdp.dev/v1alpha1',
  kind: 'FpgaConfig',
  ...rest,
});
const claim = {
  name: 'nlb0',
  driver: 'fpga.kdp.dev',
  parameters: fpgaConfig({ afuId: NLB0, bitstream: `${NLB0}.gbs`, interfaceId: IF_ID }),
};
const loaded = (): string => readFileSync(afuFile, 'utf8').trim();

describe('FpgaConfig claim configuration in the DRA playground', () => {
  it('refuses at kubectl create an FpgaConfig without its bitstream, or with a path out of the directory', async () => {
    const setup = test.driver();
    await installClaimConfigPolicy(setup, 'fpga.kdp.dev', [fpgaConfigKind]);
    const missing = await createRefused(setup, {
      name: 'no-bitstream',
      driver: 'fpga.kdp.dev',
      parameters: fpgaConfig({ afuId: NLB0 }),
    });
    expect(missing).toContain('spec.devices.config[*].opaque.parameters.bitstream: required field');
    const escape = await createRefused(setup, {
      name: 'escape',
      driver: 'fpga.kdp.dev',
      parameters: fpgaConfig({ afuId: NLB0, bitstream: '../../etc/passwd' }),
    });
    expect(escape).toContain('opaque.parameters.bitstream: must match');
  });

  it('prepares a claim with its own bitstream programmed (not the rule’s), and names its AFU', async () => {
    const setup = test.driver();
    expect(loaded()).toBe(NLB3);
    const { container, device } = await runClaimPod(setup, claim, 'nlb0-pod');
    expect(loaded()).toBe(NLB0);
    expect(fake.runs()).toEqual([`${afuFile} ${join(fake.bitstreamDir, `${NLB0}.gbs`)}`]);
    expect(container.env).toContain(`KDP_FPGA_AFU_ID_${envSuffix(device)}=${NLB0}`);
  });

  it('programs the claim’s bitstream again after a reboot, which the region’s content did not survive', async () => {
    const setup = test.driver();
    await kubectl(setup.kubeconfig, ['delete', 'pod', 'nlb0-pod', '--wait=true']);
    // The power cycle: the region comes back with the image's default AFU, the driver with a new boot ID.
    writeFileSync(afuFile, `${NLB3}\n`);
    await setup.reboot();
    await runClaimPod(setup, claim, 'nlb0-after-reboot', false);
    expect(loaded()).toBe(NLB0);
    expect(fake.runs()).toHaveLength(2);
  });
});
