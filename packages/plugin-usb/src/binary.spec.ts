import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runConformance } from '@kdp/kubelet-sim';
import { bundleEntry } from '@kdp/kubelet-sim/testing';
import { serveArgs } from './testing/run-cli';
import { addSampleMachine } from './testing/sample-machine';
import { createUsbFixture, type UsbFixture } from './testing/usb-fixture';

const run = promisify(execFile);
const BUNDLE = join(__dirname, '..', 'dist', 'main.js');

// The real binary as a process, bundled as the build target does (usb stays external, loaded from node_modules).
describe('usb-device-plugin as a process', () => {
  let usb: UsbFixture;
  let dir: string;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    bundleEntry(join(__dirname, 'main.ts'), { outfile: BUNDLE, external: ['usb'] });
  }, 60_000);

  beforeEach(() => {
    usb = createUsbFixture();
    addSampleMachine(usb);
    dir = mkdtempSync(join(tmpdir(), 'kdp-usbp-'));
    writeFileSync(
      join(usb.sys.base, 'usb.yaml'),
      'resources:\n  - name: example.com/serial\n    match: [{ class: ff }]\n    count: 2\n',
    );
  });

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child?.once('exit', resolve));
    }
    child = undefined;
    usb.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the kubelet-sim conformance suite (kubelet-sim check), SIGTERM included', async () => {
    child = spawn(process.execPath, [BUNDLE, ...serveArgs(usb.sys, dir, 'warn')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const report = await runConformance({
      dir,
      pid: child.pid ?? 0,
      restarts: 2,
      registrationTimeoutMs: 30_000,
    });
    if (!report.ok) process.stdout.write(stderr);
    expect(report.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(report.ok).toBe(true);
    await new Promise((resolve) =>
      child?.exitCode !== null ? resolve(undefined) : child.once('exit', resolve),
    );
    expect(child.exitCode).toBe(0);
    expect(readdirSync(dir).filter((name) => name.startsWith('example.com_serial'))).toEqual([]);
  }, 120_000);

  it('a bad configuration exits 2 naming the file, the field and the problem', async () => {
    const bad = join(usb.sys.base, 'bad.yaml');
    writeFileSync(
      bad,
      'resources:\n  - name: example.com/serial\n    match: [{ vendor: "0403" }]\n    count: -1\n',
    );
    const failure = await run(process.execPath, [
      BUNDLE,
      'serve',
      '--config',
      bad,
      '--device-plugin-dir',
      dir,
    ]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain(
      `usb-device-plugin: ${bad}: resources[0].count: Too small: expected number to be >=1`,
    );
  });

  it('--version prints the binary and version', async () => {
    const { stdout } = await run(process.execPath, [BUNDLE, '--version']);
    expect(stdout).toBe('usb-device-plugin 0.1.0\n');
  });
});
