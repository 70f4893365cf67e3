import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConformanceCheck, ConformanceReport } from '../conformance-check';
import { createApiServer } from '../../api-server/api-server';
import { plannedDraChecks } from './dra-check-catalog';
import { type DraConformanceOptions, runDraConformance } from './run-dra-conformance';
import { createTestDraDriver, type TestDraDriver, type TestDraDriverFault } from './test-dra-driver.fixture';

jest.setTimeout(60_000);

describe('runDraConformance', () => {
  let root: string;
  let driver: TestDraDriver | undefined;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ks-dra-check-'));
  });
  afterEach(async () => {
    await driver?.stop();
    driver = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  /** Runs the suite with the built-in API server; the test driver starts once the suite is ready. */
  const run = async (
    fault?: TestDraDriverFault,
    extra: Partial<DraConformanceOptions> = {},
  ): Promise<ConformanceReport> => {
    const registry = join(root, 'registry');
    const report = await runDraConformance({
      driver: 'gpu.example.com',
      pluginsRegistryDir: registry,
      nodeName: 'node-a',
      cdiDir: join(root, 'cdi'),
      patienceMs: 5000,
      publishTimeoutMs: 3000,
      restartPlugin: () => driver?.restart() ?? Promise.resolve(),
      rebootNode: () => driver?.reboot() ?? Promise.resolve(),
      onReady: async ({ apiServer, nodeName }) => {
        driver = await createTestDraDriver({
          root,
          registryDir: registry,
          apiServer,
          nodeName,
          ...(fault === undefined ? {} : { fault }),
        });
      },
      ...extra,
    });
    // Every check is reported, once, in the catalog's order, whatever went wrong.
    expect(report.checks.map((c) => c.id)).toEqual(plannedDraChecks().map((d) => d.id));
    return report;
  };
  const byId = (report: ConformanceReport, id: string): ConformanceCheck | undefined =>
    report.checks.find((c) => c.id === id);
  const failed = (report: ConformanceReport): string[] =>
    report.checks.filter((c) => c.status === 'fail').map((c) => c.id);

  it('passes a well-behaved driver: every check passes, PCI attributes and health included', async () => {
    const seen: string[] = [];
    const report = await run(undefined, { onCheck: (c) => seen.push(c.id) });
    expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(report).toMatchObject({ ok: true, strict: false, resource: 'gpu.example.com' });
    expect(seen).toEqual(report.checks.map((c) => c.id));
    expect(seen).toHaveLength(34);
    expect(byId(report, 'opaque-config-refused')?.reason).toMatch(
      /^prepare refused Unknown: .*driver gpu\.example\.com takes no opaque configuration \(conformance\.kdp\.dev\/v0 Unknown\)/,
    );
    expect(byId(report, 'prepare')?.reason).toMatch(
      /^kubelet-sim-check-[0-9a-f]{8}: node-a\/gpu-0 \[gpu\.example\.com\/gpu=gpu-0\]$/,
    );
    expect(byId(report, 'wrong-uid')?.reason).toMatch(/^per-claim error: ResourceClaim .* has UID /);
    expect(byId(report, 'health-stream')?.reason).toBe('2 device(s) over v1.DRAResourceHealth');
    expect(byId(report, 'node-reboot')?.reason).toBe(
      'node-a/gpu-0 [gpu.example.com/gpu=gpu-0], CDI specs written again',
    );
    // Pods the scheduler placed: by CEL on the driver's attribute, a prioritized list, two requests.
    expect(byId(report, 'scheduler-cel-selector')?.reason).toMatch(
      /^device\.attributes\["gpu\.example\.com"\]\.model == "T4" → main: gpu\.example\.com\/gpu=gpu-\d$/,
    );
    expect(byId(report, 'scheduler-two-requests')?.reason).toMatch(
      /^first: gpu\.example\.com\/gpu=gpu-(\d); second: gpu\.example\.com\/gpu=gpu-(?!\1)\d$/,
    );
    expect(byId(report, 'scheduler-fits-nowhere')?.reason).toMatch(
      /^Pending, Unschedulable: 0\/1 nodes are available: 1 cannot allocate all claims/,
    );
  });

  it('fails a driver that answers the subrequest name of a prioritized list, not the base request name', async () => {
    const report = await run('full-request-names');
    expect(failed(report)).toEqual(['scheduler-prioritized-list']);
    expect(byId(report, 'scheduler-prioritized-list')?.reason).toMatch(
      /^container main got CDI devices \[\]; the driver prepared \[gpu\.example\.com\/gpu=gpu-\d\] for main\/any /,
    );
  });

  it('warns about a driver that prepares a claim with opaque configuration it cannot understand', async () => {
    const report = await run('accepts-any-config');
    expect(report.checks.filter((c) => c.status !== 'pass').map((c) => `${c.id} ${c.status}`)).toEqual([
      'opaque-config-refused warn',
    ]);
    expect(byId(report, 'opaque-config-refused')?.reason).toMatch(
      /^the pod runs: the driver prepared a claim with opaque configuration conformance\.kdp\.dev\/v0 Unknown it cannot understand/,
    );
  });

  it('skips the scheduler checks against an external API server, whose scheduler it cannot drive', async () => {
    const server = await createApiServer({ nodes: ['node-a'] });
    try {
      const report = await run(undefined, { apiServer: { url: server.url } });
      expect(failed(report)).toEqual([]);
      const scheduler = report.checks.filter((c) => c.id.startsWith('scheduler-'));
      expect(scheduler).toHaveLength(6);
      for (const check of scheduler) {
        expect(check).toMatchObject({ status: 'skip' });
        expect(check.reason).toMatch(/^not run: the API server is an external one \(--api-server\)/);
      }
      expect(byId(report, 'opaque-config-refused')).toMatchObject({ status: 'skip' });
    } finally {
      await server.close();
    }
  });

  it('fails a driver that does not write its CDI specs again after a node reboot', async () => {
    const report = await run('no-cdi-after-reboot');
    expect(failed(report)).toEqual(['node-reboot']);
    expect(byId(report, 'node-reboot')?.reason).toMatch(
      /^prepared node-a\/gpu-0 \[gpu\.example\.com\/gpu=gpu-0\], but no spec file in \S+ defines gpu\.example\.com\/gpu=gpu-0: /,
    );
  });

  it('fails a driver that publishes no slices, and skips what needs a device, with reasons', async () => {
    const report = await run('no-slices');
    expect(failed(report)).toEqual(['publishes-slices']);
    expect(byId(report, 'publishes-slices')?.reason).toMatch(
      /^no ResourceSlice with spec\.nodeName=node-a and spec\.driver=gpu\.example\.com within 3\.00 s; .* \(required: dra\.md#control-plane\)$/,
    );
    expect(byId(report, 'prepare')).toMatchObject({
      status: 'skip',
      reason: 'not run: no published device to allocate (required: dra.md#draplugin)',
    });
    expect(byId(report, 'kubelet-restart-republish')?.reason).toMatch(
      /^not run: the driver published no device before the restart/,
    );
    expect(byId(report, 'unprepare-unknown')?.status).toBe('pass');
    expect(report.ok).toBe(false);
  });

  it('fails unqualified CDI IDs in cdi-ids, and the scheduler checks’ pods cannot start (the spec file check looks up qualified ones)', async () => {
    const report = await run('bad-cdi-ids');
    expect(failed(report)).toEqual([
      'cdi-ids',
      'scheduler-cel-selector',
      'scheduler-prioritized-list',
      'scheduler-two-requests',
      'scheduler-template-claim',
      'scheduler-admin-access',
    ]);
    expect(byId(report, 'scheduler-cel-selector')?.reason).toMatch(/^pod phase Pending/);
    expect(byId(report, 'cdi-ids')?.reason).toMatch(/^"gpu-0" not of the form vendor\.com\/class=name; /);
  });

  it('fails a prepare that answers differently the second time', async () => {
    const report = await run('not-idempotent');
    expect(failed(report)).toEqual(
      expect.arrayContaining(['prepare-idempotent', 'kubelet-restart-prepare', 'plugin-restart']),
    );
    expect(failed(report)).not.toContain('prepare');
    expect(byId(report, 'prepare-idempotent')?.reason).toMatch(
      /^first node-a\/gpu-0 \[gpu\.example\.com\/gpu=gpu-0-1\], then node-a\/gpu-0 \[gpu\.example\.com\/gpu=gpu-0-2\]; /,
    );
  });

  it('fails a driver that prepares a claim whose UID does not match; without rebootNode, node-reboot is skipped', async () => {
    const report = await run('ignores-uid', { rebootNode: undefined });
    expect(failed(report)).toEqual(['wrong-uid']);
    expect(byId(report, 'node-reboot')).toMatchObject({
      status: 'skip',
      reason: expect.stringMatching(/^not run: no way to reboot the node .*the CLI has none\)/),
    });
  });

  it('fails a driver whose unprepare of an unknown claim is an error', async () => {
    const report = await run('unknown-unprepare-error');
    expect(failed(report)).toEqual(['unprepare-unknown']);
    expect(byId(report, 'unprepare-unknown')?.reason).toMatch(
      /^kubelet-sim-check-[0-9a-f]{8}: claim \S+ is not prepared; kubelet-sim-unknown-[0-9a-f]{8}: claim \S+ is not prepared; a claim may be gone/,
    );
  });

  it('fails a driver that does not publish again after the kubelet wiped its slices', async () => {
    const report = await run('no-republish');
    // The kubelet also wipes the slices when it comes up with the rebooted node.
    expect(failed(report)).toEqual(['kubelet-restart-republish', 'node-reboot']);
    expect(byId(report, 'node-reboot')?.reason).toMatch(
      /^no complete pool of slices 3\.00 s after the reboot/,
    );
    expect(byId(report, 'kubelet-restart-republish')?.reason).toMatch(
      /^no slice 3\.00 s after the kubelet deleted 1; /,
    );
  });

  it('fails registration when no driver of that name registers, skipping the rest', async () => {
    const report = await run(undefined, { driver: 'other.example.com', registrationTimeoutMs: 1500 });
    expect(failed(report)).toEqual(['dra-registers']);
    expect(byId(report, 'dra-registers')?.reason).toMatch(
      /^no DRA driver other\.example\.com registered in .* within 1\.50 s \(seen instead: gpu\.example\.com\)/,
    );
    expect(report.checks.filter((c) => c.status === 'skip')).toHaveLength(33);
  });
});
