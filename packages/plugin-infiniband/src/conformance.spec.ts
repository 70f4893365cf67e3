import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConformance } from '@kdp/kubelet-sim';
import type { SysfsFixture } from '@kdp/topology/testing';
import { bundleEntry, spawnPlugin, type EntryBundle, type PluginProcess } from '@kdp/kubelet-sim/testing';
import { createRdmaMachine, UPSTREAM_CONFIG_JSON } from './testing/rdma-machine';

// `kubelet-sim check` for both modes: the conformance suite against the real bundle's `serve`.

let bundle: EntryBundle;
beforeAll(() => {
  bundle = bundleEntry(join(__dirname, 'main.ts'));
}, 60_000);

/** `infiniband-device-plugin serve` on the fixture machine, registering in `dir`. */
const spawnServe = (fixture: SysfsFixture, dir: string, extra: readonly string[] = []): PluginProcess =>
  spawnPlugin(bundle.path, [
    'serve',
    ...['--sysfs-root', fixture.root, '--dev-root', fixture.devRoot, '--device-plugin-dir', dir],
    ...extra,
  ]);
afterAll(() => bundle.remove());

describe('runConformance against infiniband-device-plugin serve', () => {
  let fixture: SysfsFixture;
  let plugin: PluginProcess | undefined;
  beforeEach(() => {
    fixture = createRdmaMachine();
  });
  afterEach(async () => {
    await plugin?.kill();
    plugin = undefined;
    fixture.remove();
  });

  it.each([
    ['exclusive', 'rdma/hca', undefined],
    ['shared', 'rdma/hca_shared_devices_a', UPSTREAM_CONFIG_JSON],
  ])(
    'passes in %s mode (%s)',
    async (_mode, resource, configText) => {
      const dir = join(fixture.base, 'dp');
      mkdirSync(dir);
      const configArgs: string[] = [];
      if (configText !== undefined) {
        const file = join(fixture.base, 'config.json');
        writeFileSync(file, configText);
        configArgs.push('--config', file);
      }
      plugin = spawnServe(fixture, dir, configArgs);
      const pid = plugin.child.pid;
      const report = await runConformance({
        dir,
        resource,
        ...(pid !== undefined ? { pid } : {}),
        registrationTimeoutMs: 30_000,
        // Strict: every recommended practice too. Only PreStartContainer does not apply (not required).
        strict: true,
      });
      const failed = report.checks.filter((check) => check.status === 'fail');
      expect({ failed, stderr: failed.length > 0 ? plugin.stderr() : '' }).toEqual({
        failed: [],
        stderr: '',
      });
      expect(report.ok).toBe(true);
      expect(report.resource).toBe(resource);
      expect(report.checks.flatMap((c) => (c.status === 'pass' ? [] : [`${c.id}: ${c.status}`]))).toEqual([
        'pre-start-container: skip',
      ]);
      expect(await plugin.exited).toEqual([0, null]);
    },
    120_000,
  );
});
