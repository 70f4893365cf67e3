import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Healthy } from '@kdp/api';
import { bundleEntry } from '../testing/bundle-entry';
import {
  createTestPlugin,
  defaultTestDevices,
  type TestPlugin,
  type TestPluginOptions,
} from '../testing/test-plugin';
import type { ConformanceReport } from './conformance-check';
import { type ConformanceOptions, runConformance } from './run-conformance';

jest.setTimeout(90_000);

/** Runs the suite with the plugin started just after it (as the CLI user does), then stops the plugin. */
async function check(
  dir: string,
  plugin: Omit<TestPluginOptions, 'dir'>,
  options: Omit<ConformanceOptions, 'dir'> = {},
): Promise<ConformanceReport> {
  const running = runConformance({ dir, registrationTimeoutMs: 20_000, ...options });
  const started: TestPlugin = await createTestPlugin({ dir, ...plugin });
  try {
    return await running;
  } finally {
    await started.stop();
  }
}

const statusOf = (report: ConformanceReport, id: string): { status: string; reason: string } | undefined => {
  const found = report.checks.find((c) => c.id === id);
  return found === undefined ? undefined : { status: found.status, reason: found.reason };
};

describe('runConformance', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ks-c-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes a well-behaved plugin on every check', async () => {
    const report = await check(dir, {}, { restarts: 2 });
    expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.resource).toBe('example.com/dev');
    expect(report.checks.map((c) => c.id)).toEqual([
      'registers',
      'resource-name',
      'api-version',
      'serves-before-register',
      'options-match',
      'first-list-latency',
      'allocate-per-request',
      'allocate-unknown-id',
      'preferred-allocation',
      'pre-start-container',
      'reregister-after-stream-drop',
      'reregister-after-restart-1',
      'reregister-after-restart-2',
      'full-lists',
      'device-id-length',
    ]);
  });

  it('passes a plugin that was running before the kubelet came up', async () => {
    const plugin = await createTestPlugin({ dir });
    try {
      const report = await runConformance({ dir, resource: 'example.com/dev' });
      expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    } finally {
      await plugin.stop();
    }
  });

  const longId = `GPU-${'f'.repeat(70)}`;
  it.each<[string, Omit<TestPluginOptions, 'dir'>, Omit<ConformanceOptions, 'dir'>, string, string, RegExp]>([
    [
      'an invalid resource name',
      { resource: 'dev' },
      {},
      'resource-name',
      'fail',
      /the ResourceName "dev" is invalid: it has no "\/"/,
    ],
    [
      'a wrong API version',
      { version: 'v1beta2' },
      {},
      'api-version',
      'fail',
      /requested API version "v1beta2" is not supported/,
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
      'fail',
      /Register said .*"preStartRequired":false.* but GetDevicePluginOptions said .*"preStartRequired":true/,
    ],
    [
      'a first list 5 s late',
      { firstListDelayMs: 5000 },
      {},
      'first-list-latency',
      'fail',
      /after 5\.\d\d s \(bound 1\.00 s\)/,
    ],
    [
      'a health string in the wrong case',
      { devices: defaultTestDevices().map((d, i) => (i === 1 ? { ...d, health: 'healthy' } : d)) },
      {},
      'full-lists',
      'fail',
      /device "dev-1" has health "healthy"/,
    ],
    ['delta updates', { deltaUpdates: true }, {}, 'full-lists', 'warn', /message 2 lists 1 of the 4 devices/],
    [
      'a device ID over 63 characters',
      { devices: [{ ID: longId, health: Healthy, topology: undefined }, ...defaultTestDevices()] },
      {},
      'device-id-length',
      'warn',
      /1 ID\(s\) over 63 characters/,
    ],
    [
      'one response for several container requests',
      { allocate: 'single' },
      {},
      'allocate-per-request',
      'fail',
      /3 container requests got 1 container responses/,
    ],
    [
      'accepting unknown IDs',
      { acceptUnknownIds: true },
      {},
      'allocate-unknown-id',
      'fail',
      /succeeded; an unknown ID must get an error/,
    ],
    [
      'dying on unknown IDs',
      { dieOnUnknownIds: true, reregister: 'never' },
      { patienceMs: 2000 },
      'allocate-unknown-id',
      'fail',
      /stopped answering after Allocate of an unknown ID/,
    ],
    [
      'a preference that ignores must_include',
      { preferred: 'ignore-must-include' },
      {},
      'preferred-allocation',
      'fail',
      /left out the must_include IDs dev-3/,
    ],
    [
      'a preference of the wrong size',
      { preferred: 'wrong-size' },
      {},
      'preferred-allocation',
      'fail',
      /returned 3 IDs for allocation_size 2/,
    ],
    [
      'a preference with unavailable IDs',
      { preferred: 'unavailable-ids' },
      {},
      'preferred-allocation',
      'fail',
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
      /code = Internal desc = device reset failed/,
    ],
    [
      're-registering 5 s late',
      { reregister: 5000 },
      {},
      'reregister-after-stream-drop',
      'fail',
      /after 5\.\d\d s \(bound 1\.00 s\)/,
    ],
    [
      'never re-registering',
      { reregister: 'never' },
      { patienceMs: 2000 },
      'reregister-after-restart',
      'fail',
      /did not register again within 2\.00 s after a kubelet restart/,
    ],
  ])('catches %s', async (_name, plugin, options, id, status, reason) => {
    const report = await check(dir, plugin, options);
    const result = statusOf(report, id);
    expect(result?.status).toBe(status);
    expect(result?.reason).toMatch(reason);
    expect(report.ok).toBe(status !== 'fail');
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
      const report = await runConformance({ dir, pid });
      expect(statusOf(report, 'sigterm-unlinks-socket')).toEqual({
        status: 'pass',
        reason: expect.stringMatching(/is gone$/),
      });
      expect(report.ok).toBe(true);
    });

    it('catches a plugin that leaves its socket behind', async () => {
      const pid = await startProcess({ keepSocketOnSigterm: true });
      const report = await runConformance({ dir, pid, patienceMs: 2000 });
      expect(statusOf(report, 'sigterm-unlinks-socket')).toEqual({
        status: 'fail',
        reason: expect.stringMatching(/still exists 2\.00 s after SIGTERM$/),
      });
    });
  });

  it('reports a plugin that never registers', async () => {
    const report = await runConformance({ dir, registrationTimeoutMs: 300 });
    expect(report.ok).toBe(false);
    expect(statusOf(report, 'registers')).toEqual({
      status: 'fail',
      reason: 'no plugin registered within 0.30 s',
    });
  });
});
