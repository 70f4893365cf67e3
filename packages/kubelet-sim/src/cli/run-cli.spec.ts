import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer } from '../api-server/api-server';
import { createTestDraDriver, type TestDraDriver } from '../conformance/dra/test-dra-driver.fixture';
import { bundleEntry } from '../testing/bundle-entry';
import { createTestPlugin, type TestPlugin } from '../testing/test-plugin';
import { runCli } from './run-cli';

jest.setTimeout(60_000);

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('kubelet-sim CLI', () => {
  let main: string;
  let dir: string;
  let plugin: TestPlugin | undefined;
  beforeAll(() => {
    // The same bundle as the `build` target, built where the test can find it.
    main = bundleEntry(join(__dirname, '../main.ts')).path;
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ks-cli-'));
  });
  afterEach(async () => {
    await plugin?.stop();
    plugin = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (args: string[]): Promise<Result> =>
    new Promise((resolve) => {
      execFile(process.execPath, [main, ...args], { timeout: 50_000 }, (err, stdout, stderr) =>
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr }),
      );
    });

  it('check passes a well-behaved plugin with exit code 0, the SIGTERM check skipped without --pid', async () => {
    const result = run(['check', '--dir', dir, '--timeout', '20']);
    plugin = await createTestPlugin({ dir });
    const { code, stdout } = await result;
    expect(stdout).toMatch(/^PASS {2}registers +example\.com\/dev at tp-/m);
    expect(stdout).toMatch(/^PASS {2}reregister-after-restart +after \d+ ms$/m);
    expect(stdout).toMatch(
      /^SKIP {2}sigterm-unlinks-socket +not run: no PID given \(--pid\) \(recommended: P-2, P-36\)$/m,
    );
    expect(stdout).toMatch(
      /^PASS: 22 checks, 21 passed, 0 warned, 1 skipped, 0 failed \(example\.com\/dev\)$/m,
    );
    expect(code).toBe(0);
  });

  it('check warns about a recommended practice with exit code 0, and --strict fails it with exit code 1', async () => {
    const strictDir = mkdtempSync(join(tmpdir(), 'ks-cli-'));
    // One response for several container requests (recommended), and neither optional RPC advertised (skipped).
    const sloppy = {
      allocate: 'single',
      options: { preStartRequired: false, getPreferredAllocationAvailable: false },
    } as const;
    const plugins: TestPlugin[] = [];
    try {
      const results = [run(['check', '--dir', dir]), run(['check', '--dir', strictDir, '--strict'])];
      plugins.push(await createTestPlugin({ dir, ...sloppy }));
      plugins.push(await createTestPlugin({ dir: strictDir, ...sloppy }));
      const [lenient, strict] = await Promise.all(results);
      expect(lenient?.stdout).toMatch(
        /^WARN {2}allocate-per-request +3 container requests got 1 container responses; .* \(recommended: P-27\)$/m,
      );
      expect(lenient?.stdout).toMatch(
        /^SKIP {2}pre-start-container +not required, so never called \(required: P-29\)$/m,
      );
      expect(lenient?.stdout).toMatch(
        /^PASS: 22 checks, 17 passed, 1 warned, 4 skipped, 0 failed \(example\.com\/dev\)$/m,
      );
      expect(lenient?.code).toBe(0);
      expect(strict?.stdout).toMatch(
        /^kubelet-sim check: waiting up to 30 s .* \(strict: a recommended check that warns fails\)$/m,
      );
      expect(strict?.stdout).toMatch(
        /^FAIL {2}allocate-per-request +3 container requests got 1 container responses/m,
      );
      expect(strict?.stdout).toMatch(
        /^FAIL \(strict\): 22 checks, 17 passed, 0 warned, 4 skipped, 1 failed \(example\.com\/dev\)$/m,
      );
      expect(strict?.code).toBe(1);
    } finally {
      await Promise.all(plugins.map((p) => p.stop()));
      rmSync(strictDir, { recursive: true, force: true });
    }
  });

  it('check fails a plugin that breaks a kubelet rule with exit code 1; --json gives status, level and rules', async () => {
    const result = run(['check', '--dir', dir, '--json']);
    plugin = await createTestPlugin({ dir, allocate: 'none' });
    const { code, stdout } = await result;
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ ok: false, strict: false, resource: 'example.com/dev' });
    expect(report.checks).toContainEqual({
      id: 'allocate',
      title: 'Allocate of a healthy device succeeds with a container response',
      level: 'required',
      rules: ['P-27'],
      status: 'fail',
      reason: expect.stringMatching(
        /^Allocate of dev-0 answered no container response; .* \(required: P-27\)$/,
      ),
    });
    expect(code).toBe(1);
  });

  it('check --dra passes a well-behaved DRA driver against a given API server, plugin-restart and node-reboot skipped', async () => {
    const api = await createApiServer({ nodes: ['kubelet-sim-node'] });
    let driver: TestDraDriver | undefined;
    const registry = join(dir, 'registry');
    // The driver runs first: the kubelet's start wipes its slice, and it publishes again.
    try {
      driver = await createTestDraDriver({
        root: dir,
        registryDir: registry,
        apiServer: { url: api.url },
        nodeName: 'kubelet-sim-node',
      });
      const { code, stdout } = await run([
        'check',
        '--dra',
        '--driver',
        'gpu.example.com',
        '--plugins-registry-dir',
        registry,
        '--api-server',
        api.url,
        '--cdi-dir',
        driver.cdiDir,
        '--kubeconfig-out',
        join(dir, 'kubeconfig'),
      ]);
      expect(stdout).toMatch(
        new RegExp(
          `^kubelet-sim check --dra: API server ${api.url} \\(kubeconfig .*\\), node kubelet-sim-node; waiting up to 30 s`,
          'm',
        ),
      );
      expect(stdout).toMatch(/^PASS {2}dra-registers +v1\.DRAPlugin \+ v1\.DRAResourceHealth at \//m);
      expect(stdout).toMatch(/^PASS {2}cdi-spec +1 CDI device\(s\) defined in /m);
      expect(stdout).toMatch(
        /^SKIP {2}plugin-restart +not run: no way to restart the driver .* \(required: dra\.md#draplugin, dra\.md#users-report\)$/m,
      );
      expect(stdout).toMatch(
        /^SKIP {2}node-reboot +not run: no way to reboot the node .* \(required: dra\.md#draplugin, dra\.md#users-report\)$/m,
      );
      expect(stdout).toMatch(
        /^SKIP {2}scheduler-fits-nowhere +not run: the API server is an external one \(--api-server\)/m,
      );
      expect(stdout).toMatch(
        /^PASS: 34 checks, 25 passed, 0 warned, 9 skipped, 0 failed \(gpu\.example\.com\)$/m,
      );
      expect(code).toBe(0);
    } finally {
      await driver?.stop();
      await api.close();
    }
  });

  it('exits 2 on a usage error', async () => {
    const { code, stderr } = await run(['check', '--dir', dir, '--pid', 'x']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^kubelet-sim: --pid needs an integer of at least 1, got "x"/);
  });

  it('serve shows a registration and its device list live, and stops on SIGINT', async () => {
    const child: ChildProcess = spawn(process.execPath, [main, 'serve', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const seen = (pattern: RegExp): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`serve never printed ${pattern}; got:\n${out}`)),
          30_000,
        );
        const check = (): void => {
          if (!pattern.test(out)) return;
          clearTimeout(timer);
          child.stdout?.off('data', onData);
          resolve();
        };
        const onData = (chunk: Buffer): void => {
          out += chunk.toString();
          check();
        };
        child.stdout?.on('data', onData);
        check();
      });
    try {
      await seen(/^TIME {10}EVENT/m);
      plugin = await createTestPlugin({ dir, endpoint: 'cli.sock' });
      await seen(/dev-3 +"Healthy" +numa=1/);
      expect(out).toMatch(/registered +example\.com\/dev +endpoint=cli\.sock version=v1beta1 via=register/);
      expect(out).toMatch(/devices +example\.com\/dev +4 devices: 4 healthy, 0 unhealthy/);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('runCli prints usage for --help and the version it is given for --version, in-process', async () => {
    let text = '';
    const io = {
      stdout: { write: (s: string) => (text += s) },
      stderr: { write: () => true },
      version: '4.5.6',
    };
    expect(await runCli(['--help'], io)).toBe(0);
    expect(text).toContain('kubelet-sim check --dir DIR');
    expect(text).toContain('--strict   every WARN becomes a FAIL');
    text = '';
    expect(await runCli(['--version'], io)).toBe(0);
    expect(text).toBe('kubelet-sim 4.5.6\n');
  });
});
