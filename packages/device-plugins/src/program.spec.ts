import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runPluginCommand, startPluginRun } from '@kdp/core/testing';
import { createKubeletSim } from '@kdp/kubelet-sim';
import { createRdmaMachine } from '@kdp/plugin-infiniband/testing';
import type { SysfsFixture } from '@kdp/topology/testing';
import packageJson from '../package.json';
import { devicePlugins } from './program';

describe('kdp-device-plugins', () => {
  let fixture: SysfsFixture;
  beforeEach(() => {
    fixture = createRdmaMachine();
  });
  afterEach(() => fixture.remove());
  const roots = (): string[] => [
    '--sysfs-root',
    fixture.root,
    '--dev-root',
    fixture.devRoot,
    '--proc-root',
    fixture.procRoot,
  ];

  it('prints its package version and a --help section per plugin, flags prefixed with the plugin name', async () => {
    expect((await runPluginCommand(devicePlugins, ['--version'])).stdout).toBe(
      `kdp-device-plugins ${packageJson.version}\n`,
    );
    const help = (await runPluginCommand(devicePlugins, ['--help'])).stdout;
    for (const plugin of ['gpu', 'sriov', 'infiniband', 'usb', 'fpga']) {
      expect(help).toContain(`\n${plugin}: `);
      expect(help).toContain(`  --${plugin}-config FILE `);
    }
    expect(help).toContain('  --sriov-devinfo-dir DIR ');
    expect(help).toContain(
      '  --plugins LIST                   the plugins to run [gpu,sriov,infiniband,usb,fpga]\n',
    );
  });

  it('discovers with every plugin on one machine; a plugin without devices adds nothing', async () => {
    const { code, stdout, stderr } = await runPluginCommand(devicePlugins, [
      'discover',
      '--output',
      'json',
      ...roots(),
    ]);
    expect([code, stderr]).toEqual([0, '']);
    const doc = JSON.parse(stdout) as { resources: { resourceName: string; devices: unknown[] }[] };
    expect(doc.resources.map((r) => [r.resourceName, r.devices.length])).toEqual([['rdma/hca', 4]]);
  });

  it('serves the chosen plugins from one process and stops cleanly on SIGTERM', async () => {
    const dir = join(fixture.base, 'dp');
    mkdirSync(dir);
    const sim = await createKubeletSim({ dir });
    const run = startPluginRun(devicePlugins, [
      'serve',
      '--plugins',
      'infiniband,usb',
      '--device-plugin-dir',
      dir,
      ...roots(),
    ]);
    try {
      const state = await sim.until('rdma/hca', (s) => s.healthy.length === 4);
      expect(state.options.getPreferredAllocationAvailable).toBe(true);
      await run.waitForLog((l) => l['msg'] === 'starting');
      expect(run.logs().find((l) => l['msg'] === 'starting')).toMatchObject({
        plugins: ['infiniband', 'usb'],
      });
      expect(await run.stop()).toBe(0);
    } finally {
      await run.stop();
      await sim.close();
    }
  }, 60_000);
});
