import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createKubeletSim, runConformance, type KubeletSim } from '@kdp/kubelet-sim';
import { spawnPlugin, type PluginProcess } from '@kdp/kubelet-sim/testing';
import { allInOneArgs } from './plugin-processes';
import { createSampleNode, type SampleNode } from './sample-node/create-sample-node';
import { EXPECTED_RESOURCES } from './sample-node/sample-configs';
import { bundleAllInOne } from './testing/bundle-plugins';
import { waitUntil } from './wait-until';

// `kdp-device-plugins serve` with all five plugins on the sample node, as `kdp-demo --all-in-one` runs it:
// every resource registers with its devices, and each passes kubelet-sim's conformance suite.

const outDir = join(__dirname, '..', 'dist', 'spec-all-in-one');

/** Generous bounds: the machine may be small and busy with other suites. */
const REGISTRATION_MS = 60_000;
const PATIENCE_MS = 30_000;

describe('kdp-device-plugins serve on the sample node', () => {
  let node: SampleNode;
  let dir: string;
  let plugin: PluginProcess | undefined;
  let sim: KubeletSim | undefined;

  beforeAll(() => {
    bundleAllInOne(outDir);
    node = createSampleNode();
    dir = join(node.root, 'dp');
    for (const sub of ['cdi', 'devinfo']) mkdirSync(join(node.root, sub));
  }, 120_000);

  afterAll(async () => {
    await sim?.close();
    await plugin?.kill();
    node.remove();
  });

  const diagnostics = (): string =>
    `its stderr:\n${plugin?.stderr().split('\n').slice(-20).join('\n') ?? ''}`;

  it('registers all nine resources with their devices', async () => {
    sim = await createKubeletSim({ dir });
    const [bundle = '', ...args] = allInOneArgs({
      node,
      packagesDir: outDir,
      devicePluginDir: dir,
      cdiDir: join(node.root, 'cdi'),
      devinfoDir: join(node.root, 'devinfo'),
      logFile: join(node.root, 'plugins.log'),
    });
    plugin = spawnPlugin(bundle, args);
    const current = sim;
    const counts = (): Record<string, number> =>
      Object.fromEntries(
        EXPECTED_RESOURCES.map(({ resource }) => {
          const state = current.resource(resource);
          return [resource, state?.registered === true ? state.devices.length : 0];
        }),
      );
    const expected = Object.fromEntries(EXPECTED_RESOURCES.map((e) => [e.resource, e.devices]));
    await waitUntil(
      current,
      () => (EXPECTED_RESOURCES.every((e) => counts()[e.resource] === e.devices) ? true : undefined),
      REGISTRATION_MS,
      () => `not all registered: ${JSON.stringify(counts())}; ${diagnostics()}`,
    );
    expect(counts()).toEqual(expected);
    await current.close();
    sim = undefined;
  }, 120_000);

  it('passes the conformance suite for each of the nine resources (SIGTERM with the last)', async () => {
    const pid = plugin?.child.pid;
    expect(pid).toBeDefined();
    const failures: Record<string, unknown> = {};
    const notPassed: Record<string, string[]> = {};
    const expectedNotPassed: Record<string, string[]> = {};
    for (const [index, { resource, devices }] of EXPECTED_RESOURCES.entries()) {
      const last = index === EXPECTED_RESOURCES.length - 1;
      const report = await runConformance({
        dir,
        resource,
        restarts: 1,
        registrationTimeoutMs: REGISTRATION_MS,
        patienceMs: PATIENCE_MS,
        // The SIGTERM check stops the process, so only the last resource's run has it.
        ...(last && pid !== undefined ? { pid } : {}),
        // Strict: every recommended practice too; only the checks that do not apply are not passes.
        strict: true,
      });
      expect(report.resource).toBe(resource);
      const failed = report.checks.filter((check) => check.status === 'fail');
      if (failed.length > 0) failures[resource] = failed;
      notPassed[resource] = report.checks.flatMap((c) =>
        c.status === 'pass' ? [] : [`${c.id}: ${c.status}`],
      );
      // A preference needs two healthy devices to judge; no resource requires PreStartContainer.
      expectedNotPassed[resource] = [
        ...(devices < 2 ? ['preferred-allocation: skip'] : []),
        'pre-start-container: skip',
        ...(last ? [] : ['sigterm-unlinks-socket: skip']),
      ];
    }
    expect(notPassed).toEqual(expectedNotPassed);
    expect({ failures, stderr: Object.keys(failures).length > 0 ? diagnostics() : '' }).toEqual({
      failures: {},
      stderr: '',
    });
    expect(await plugin?.exited).toEqual([0, null]);
  }, 600_000);
});
