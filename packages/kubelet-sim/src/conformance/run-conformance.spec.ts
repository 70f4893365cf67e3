import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Healthy, Unhealthy } from '@kdp/api';
import { bundleEntry } from '../testing/bundle-entry';
import {
  createTestPlugin,
  defaultTestDevices,
  type TestPlugin,
  type TestPluginOptions,
} from '../testing/test-plugin';
import { checkCatalog, plannedChecks } from './check-catalog';
import type { CheckStatus, ConformanceReport } from './conformance-check';
import { type ConformanceOptions, runConformance } from './run-conformance';

jest.setTimeout(90_000);

/** Every report must keep the suite's promises: the planned checks in order, no required check that warns, cited reasons. */
function expectWellFormed(report: ConformanceReport, restarts: number): void {
  expect(report.checks.map((c) => c.id)).toEqual(plannedChecks(restarts).map((p) => p.id));
  for (const check of report.checks) {
    if (check.level === 'required') expect([check.id, check.status]).not.toEqual([check.id, 'warn']);
    if (check.status !== 'pass') {
      expect(check.reason).toMatch(new RegExp(` \\(${check.level}: ${check.rules.join(', ')}\\)$`));
    }
  }
  expect(report.ok).toBe(report.checks.every((c) => c.status !== 'fail'));
}

/** Runs the suite with the plugin started just after it (as the CLI user does), then stops the plugin. */
async function check(
  dir: string,
  plugin: Omit<TestPluginOptions, 'dir'>,
  options: Omit<ConformanceOptions, 'dir'> = {},
): Promise<ConformanceReport> {
  const running = runConformance({ dir, registrationTimeoutMs: 20_000, ...options });
  const started: TestPlugin = await createTestPlugin({ dir, ...plugin });
  try {
    const report = await running;
    expectWellFormed(report, options.restarts ?? 1);
    return report;
  } finally {
    await started.stop();
  }
}

const statusOf = (report: ConformanceReport, id: string): { status: string; reason: string } | undefined => {
  const found = report.checks.find((c) => c.id === id);
  return found === undefined ? undefined : { status: found.status, reason: found.reason };
};

/** Every check's status by id: `pass`, except those given. */
const statuses = (report: ConformanceReport): Record<string, CheckStatus> =>
  Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
const allPassBut = (
  report: ConformanceReport,
  others: Record<string, CheckStatus>,
): Record<string, CheckStatus> => ({
  ...Object.fromEntries(report.checks.map((c) => [c.id, 'pass' as const])),
  ...others,
});

describe('runConformance', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ks-c-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes a well-behaved plugin on every check, even strict; the SIGTERM check is skipped without a PID', async () => {
    const report = await check(dir, {}, { restarts: 2, strict: true });
    expect(statuses(report)).toEqual(allPassBut(report, { 'sigterm-unlinks-socket': 'skip' }));
    expect(report).toMatchObject({ ok: true, strict: true, resource: 'example.com/dev' });
    expect(report.checks.map((c) => c.id)).toEqual([
      'registers',
      'resource-name',
      'api-version',
      'serves-before-register',
      'options-match',
      'first-list',
      'first-list-latency',
      'allocate',
      'allocate-per-request',
      'allocate-unknown-id',
      'survives-bad-request',
      'preferred-allocation-answers',
      'preferred-allocation',
      'pre-start-container',
      'reregister-after-stream-drop',
      'reregister-after-restart-1',
      'reregister-after-restart-2',
      'reregister-latency',
      'health-recovers',
      'health-strings',
      'full-lists',
      'device-id-length',
      'sigterm-unlinks-socket',
    ]);
    expect(statusOf(report, 'health-recovers')?.reason).toMatch(
      /^3 re-registration\(s\), each listed the devices healthy before it Healthy again within \d+ ms$/,
    );
    expect(statusOf(report, 'sigterm-unlinks-socket')?.reason).toBe(
      'not run: no PID given (--pid) (recommended: P-2, P-36)',
    );
  });

  it('passes a plugin that was running before the kubelet came up', async () => {
    const plugin = await createTestPlugin({ dir });
    try {
      const report = await runConformance({ dir, resource: 'example.com/dev' });
      expect(statuses(report)).toEqual(allPassBut(report, { 'sigterm-unlinks-socket': 'skip' }));
    } finally {
      await plugin.stop();
    }
  });

  it('passes a plugin that follows only the documented contract (no re-Register after a dropped stream), and strict fails it', async () => {
    // Like NVIDIA's plugin: registers again when its socket is deleted or kubelet.sock is created again.
    const contractOnly = { reregisterOnStreamEnd: false };
    const strictDir = mkdtempSync(join(tmpdir(), 'ks-c-'));
    try {
      const [lenient, strict] = await Promise.all([
        check(dir, contractOnly, { patienceMs: 5000 }),
        check(strictDir, contractOnly, { patienceMs: 5000, strict: true }),
      ]);
      expect(statuses(lenient)).toEqual(
        allPassBut(lenient, { 'reregister-after-stream-drop': 'warn', 'sigterm-unlinks-socket': 'skip' }),
      );
      expect(lenient.ok).toBe(true);
      expect(statusOf(lenient, 'reregister-after-stream-drop')?.reason).toMatch(
        /^did not register again within 5\.00 s after a dropped stream: the kubelet never reopens a stream.* \(recommended: P-19, P-21\)$/,
      );
      expect(statuses(strict)).toEqual(
        allPassBut(strict, { 'reregister-after-stream-drop': 'fail', 'sigterm-unlinks-socket': 'skip' }),
      );
      expect(strict).toMatchObject({ ok: false, strict: true });
    } finally {
      rmSync(strictDir, { recursive: true, force: true });
    }
  });

  it('warns about every recommended practice a plugin misses, and strict fails each of them', async () => {
    const sloppy: Omit<TestPluginOptions, 'dir'> = {
      registerOptions: { preStartRequired: false, getPreferredAllocationAvailable: true },
      allocate: 'single',
      acceptUnknownIds: true,
      preferred: 'wrong-size',
      devices: [
        { ID: `GPU-${'f'.repeat(70)}`, health: Healthy, topology: undefined },
        ...defaultTestDevices(),
      ],
    };
    const warned = {
      'options-match': 'warn',
      'allocate-per-request': 'warn',
      'allocate-unknown-id': 'warn',
      'preferred-allocation': 'warn',
      'device-id-length': 'warn',
      'sigterm-unlinks-socket': 'skip',
    } as const;
    const lenient = await check(dir, sloppy);
    expect(statuses(lenient)).toEqual(allPassBut(lenient, warned));
    expect(lenient).toMatchObject({ ok: true, strict: false });
    const strictDir = mkdtempSync(join(tmpdir(), 'ks-c-'));
    try {
      const strict = await check(strictDir, sloppy, { strict: true });
      expect(statuses(strict)).toEqual(
        allPassBut(strict, {
          ...Object.fromEntries(Object.keys(warned).map((id) => [id, 'fail'])),
          'sigterm-unlinks-socket': 'skip',
        }),
      );
      expect(strict).toMatchObject({ ok: false, strict: true });
    } finally {
      rmSync(strictDir, { recursive: true, force: true });
    }
  });

  it('skips the RPCs a plugin does not advertise, and never counts them as passed', async () => {
    const report = await check(dir, {
      options: { preStartRequired: false, getPreferredAllocationAvailable: false },
    });
    expect(statuses(report)).toEqual(
      allPassBut(report, {
        'preferred-allocation-answers': 'skip',
        'preferred-allocation': 'skip',
        'pre-start-container': 'skip',
        'sigterm-unlinks-socket': 'skip',
      }),
    );
    expect(statusOf(report, 'preferred-allocation')?.reason).toBe(
      'not advertised, so the kubelet never calls it (recommended: P-26)',
    );
    expect(statusOf(report, 'pre-start-container')?.reason).toBe(
      'not required, so never called (required: P-29)',
    );
    expect(report.ok).toBe(true);
  });

  it('skips what needs a healthy device when none is', async () => {
    const report = await check(dir, {
      devices: defaultTestDevices().map((d) => ({ ...d, health: Unhealthy })),
    });
    const noDevice = 'skip';
    expect(statuses(report)).toEqual(
      allPassBut(report, {
        allocate: noDevice,
        'allocate-per-request': noDevice,
        'preferred-allocation-answers': noDevice,
        'preferred-allocation': noDevice,
        'pre-start-container': noDevice,
        'sigterm-unlinks-socket': 'skip',
      }),
    );
    expect(statusOf(report, 'allocate')?.reason).toBe(
      'not run: the plugin lists no healthy device (required: P-27)',
    );
  });

  const longId = `GPU-${'f'.repeat(70)}`;
  it.each<
    [string, Omit<TestPluginOptions, 'dir'>, Omit<ConformanceOptions, 'dir'>, string, CheckStatus, RegExp]
  >([
    [
      'a wrong API version',
      { version: 'v1beta2' },
      {},
      'api-version',
      'fail',
      /requested API version "v1beta2" is not supported.* \(required: P-7\)$/,
    ],
    [
      'registering before serving',
      { serveAfterRegisterMs: 1500 },
      {},
      'serves-before-register',
      'fail',
      /did not accept a connection when Register arrived/,
    ],
    [
      'Register options that differ from GetDevicePluginOptions',
      { registerOptions: { preStartRequired: false, getPreferredAllocationAvailable: true } },
      {},
      'options-match',
      'warn',
      /Register said .*"preStartRequired":false.* but GetDevicePluginOptions said .*"preStartRequired":true.* \(recommended: P-10\)$/,
    ],
    [
      'no ListAndWatch message at all',
      { firstListDelayMs: 60_000 },
      { patienceMs: 2000 },
      'first-list',
      'fail',
      /^no ListAndWatch message within 2\.00 s of Register: the kubelet shows capacity 0 \(required: P-12, P-14\)$/,
    ],
    [
      'a first list 2 s late',
      { firstListDelayMs: 2000 },
      // Generous patience: on a loaded machine the late list must still count as late, never as missing.
      { patienceMs: 15_000 },
      'first-list-latency',
      'warn',
      /^after [2-9]\.\d\d s \(bound 1\.00 s\)/,
    ],
    [
      'a health string in the wrong case',
      { devices: defaultTestDevices().map((d, i) => (i === 1 ? { ...d, health: 'healthy' } : d)) },
      {},
      'health-strings',
      'fail',
      /device "dev-1" has health "healthy"; .* \(required: P-15\)$/,
    ],
    ['delta updates', { deltaUpdates: true }, {}, 'full-lists', 'warn', /message 2 lists 1 of the 4 devices/],
    [
      'a device ID over 63 characters',
      { devices: [{ ID: longId, health: Healthy, topology: undefined }, ...defaultTestDevices()] },
      {},
      'device-id-length',
      'warn',
      /1 ID\(s\) over 63 characters.* \(recommended: P-18\)$/,
    ],
    [
      'no container response',
      { allocate: 'none' },
      {},
      'allocate',
      'fail',
      /^Allocate of dev-0 answered no container response; the kubelet rejects the pod/,
    ],
    [
      'an Allocate error for a healthy device',
      { allocate: 'error' },
      {},
      'allocate',
      'fail',
      /^Allocate of the healthy device dev-0 failed: rpc error: code = Internal desc = device is busy/,
    ],
    [
      'one response for several container requests',
      { allocate: 'single' },
      {},
      'allocate-per-request',
      'warn',
      /3 container requests got 1 container responses/,
    ],
    [
      'accepting unknown IDs',
      { acceptUnknownIds: true },
      {},
      'allocate-unknown-id',
      'warn',
      /succeeded; an unknown ID should get an error/,
    ],
    [
      'dying on unknown IDs',
      { dieOnUnknownIds: true, reregister: 'never' },
      { patienceMs: 2000 },
      'survives-bad-request',
      'fail',
      /stopped answering after Allocate of an unknown ID/,
    ],
    [
      'a GetPreferredAllocation error',
      { preferred: 'error' },
      {},
      'preferred-allocation-answers',
      'fail',
      /GetPreferredAllocation failed: .*topology unknown; the kubelet rejects the pod \(required: P-26\)$/,
    ],
    [
      'a preference that ignores must_include',
      { preferred: 'ignore-must-include' },
      {},
      'preferred-allocation',
      'warn',
      /left out the must_include IDs dev-3/,
    ],
    [
      'a preference of the wrong size',
      { preferred: 'wrong-size' },
      {},
      'preferred-allocation',
      'warn',
      /returned 3 IDs for allocation_size 2/,
    ],
    [
      'a preference with unavailable IDs',
      { preferred: 'unavailable-ids' },
      {},
      'preferred-allocation',
      'warn',
      /returned IDs that were not available: no-such-device/,
    ],
    [
      'a PreStartContainer that never answers',
      { preStart: 'hang' },
      { preStartTimeoutMs: 1000 },
      'pre-start-container',
      'fail',
      /DeadlineExceeded/,
    ],
    [
      'a PreStartContainer that fails',
      { preStart: 'error' },
      {},
      'pre-start-container',
      'fail',
      /code = Internal desc = device reset failed; the container does not start \(required: P-29\)$/,
    ],
    [
      'never re-registering',
      { reregister: 'never' },
      { patienceMs: 2000 },
      'reregister-after-restart',
      'fail',
      /did not register again within 2\.00 s after a kubelet restart .* \(required: P-2, P-3, P-5\)$/,
    ],
    [
      'health that recovers 2 s after registering again',
      { unhealthyAfterReregisterMs: 2000 },
      {},
      'health-recovers',
      'warn',
      /^after a dropped stream: the 4 healthy device\(s\) listed Healthy 2\.\d\d s after registering again/,
    ],
    [
      'health that never recovers',
      { unhealthyAfterReregisterMs: 60_000 },
      { patienceMs: 2000 },
      'health-recovers',
      'warn',
      /^after a dropped stream: dev-0, dev-1, dev-2, … not listed Healthy within 2\.00 s of registering again/,
    ],
  ])('catches %s', async (_name, plugin, options, id, status, reason) => {
    const report = await check(dir, plugin, options);
    const result = statusOf(report, id);
    expect(result?.status).toBe(status);
    expect(result?.reason).toMatch(reason);
    // Named, so that a failure shows which check failed and why.
    const failed = report.checks.filter((c) => c.status === 'fail').map((c) => `${c.id}: ${c.reason}`);
    if (status === 'fail') expect(failed).toContainEqual(expect.stringMatching(new RegExp(`^${id}: `)));
    else expect(failed).toEqual([]);
  });

  it('catches re-registering 2.5 s late: a warning after a dropped stream and after a restart', async () => {
    const report = await check(dir, { reregister: 2500 });
    expect(statuses(report)).toEqual(
      allPassBut(report, {
        'reregister-after-stream-drop': 'warn',
        'reregister-latency': 'warn',
        'sigterm-unlinks-socket': 'skip',
      }),
    );
    expect(statusOf(report, 'reregister-after-stream-drop')?.reason).toMatch(
      /^after 2\.\d\d s \(bound 1\.00 s\) \(recommended: P-19, P-21\)$/,
    );
    expect(statusOf(report, 'reregister-latency')?.reason).toMatch(
      /^after 2\.\d\d s \(bound 1\.00 s\); capacity is 0 until then \(recommended: P-5\)$/,
    );
  });

  it('catches an invalid resource name: judges the name and version of the refused Register, skips the rest', async () => {
    const report = await check(dir, { resource: 'dev' });
    const skipped = Object.fromEntries(report.checks.slice(3).map((c) => [c.id, 'skip']));
    expect(statuses(report)).toEqual({
      registers: 'fail',
      'resource-name': 'fail',
      'api-version': 'pass',
      ...skipped,
    });
    expect(statusOf(report, 'resource-name')?.reason).toMatch(
      /^the ResourceName "dev" is invalid: it has no "\/".* \(required: P-8\)$/,
    );
    expect(statusOf(report, 'first-list')?.reason).toBe(
      `not run: the plugin never registered (required: ${checkCatalog.firstList.rules.join(', ')})`,
    );
  });

  describe('with a plugin process (--pid)', () => {
    let bundle: string;
    let child: ChildProcess | undefined;
    beforeAll(() => {
      bundle = bundleEntry(join(__dirname, '../testing/test-plugin-main.ts')).path;
    });
    afterEach(() => {
      child?.kill('SIGKILL');
      child = undefined;
    });

    const startProcess = async (options: object): Promise<number> => {
      child = spawn(process.execPath, [bundle, JSON.stringify({ dir, ...options })], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await once(child.stdout as NodeJS.ReadableStream, 'data');
      return child.pid ?? -1;
    };

    it('passes a plugin that unlinks its socket on SIGTERM', async () => {
      const pid = await startProcess({});
      const report = await runConformance({ dir, pid, strict: true });
      expectWellFormed(report, 1);
      expect(statusOf(report, 'sigterm-unlinks-socket')).toEqual({
        status: 'pass',
        reason: expect.stringMatching(/is gone$/),
      });
      expect(report.ok).toBe(true);
    });

    it('warns about a plugin that leaves its socket behind', async () => {
      const pid = await startProcess({ keepSocketOnSigterm: true });
      const report = await runConformance({ dir, pid, patienceMs: 2000 });
      expectWellFormed(report, 1);
      expect(statusOf(report, 'sigterm-unlinks-socket')).toEqual({
        status: 'warn',
        reason: expect.stringMatching(/still exists 2\.00 s after SIGTERM; .* \(recommended: P-2, P-36\)$/),
      });
    });
  });

  it('reports a plugin that never registers, every other check skipped', async () => {
    const report = await runConformance({ dir, registrationTimeoutMs: 300, restarts: 0 });
    expectWellFormed(report, 0);
    expect(report.ok).toBe(false);
    expect(statusOf(report, 'registers')).toEqual({
      status: 'fail',
      reason:
        'no plugin registered within 0.30 s; without Register the kubelet knows no resource (required: P-7, P-8, P-11)',
    });
    expect(report.checks.filter((c) => c.status !== 'skip').map((c) => c.id)).toEqual(['registers']);
  });
});
