import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runDemo, type DemoIo } from './run-demo';
import { bundlePlugins } from './testing/bundle-plugins';

const outDir = join(__dirname, '..', 'dist', 'spec-failures');

/** Replaces a package's bundle with a script (a plugin that misbehaves). */
function fakeBundle(folder: string, script: string): void {
  mkdirSync(join(outDir, folder, 'dist'), { recursive: true });
  writeFileSync(join(outDir, folder, 'dist', 'main.js'), script);
}

const fakePlugin = (plugin: string, script: string): void => fakeBundle(`plugin-${plugin}`, script);

function captureIo(overrides: Partial<DemoIo> = {}): DemoIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    write: (text) => (out += text),
    writeError: (text) => (err += text),
    tty: false,
    packagesDir: outDir,
    onInterrupt: () => () => undefined,
    out: () => out,
    err: () => err,
    ...overrides,
  };
}

/** The temp dir the demo reported keeping, removed by the test. */
function keptDir(stderr: string): string {
  const dir = /kept (\S+) for inspection/.exec(stderr)?.[1];
  if (dir === undefined) throw new Error(`no kept dir in: ${stderr}`);
  return dir;
}

describe('runDemo when a step fails or is interrupted', () => {
  beforeAll(() => {
    bundlePlugins(outDir);
  }, 120_000);

  it('names a plugin that never registers and shows the tail of its log (exit 1)', async () => {
    fakePlugin(
      'fpga',
      `process.stderr.write('{"level":"info","msg":"waiting for a card that never comes"}\\n');\nsetInterval(() => undefined, 1000);\n`,
    );
    const io = captureIo({ timeoutMs: 4000 });
    const code = await runDemo(['--once'], io);
    expect(code).toBe(1);
    expect(io.err()).toContain(
      'kdp-demo: the fpga plugin did not register all devices of fpga.intel.com/af-695.d84.',
    );
    expect(io.err()).toContain('within 4 s; the last lines of its log:');
    expect(io.err()).toContain('waiting for a card that never comes');
    const dir = keptDir(io.err());
    expect(existsSync(join(dir, 'plugins.log'))).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('fails at once when a plugin exits, with its exit code and its last lines (exit 1)', async () => {
    fakePlugin(
      'usb',
      `process.stderr.write('usb-device-plugin: config.yaml: resources: broken\\n');\nprocess.exit(2);\n`,
    );
    const io = captureIo({ timeoutMs: 20_000 });
    const started = Date.now();
    const code = await runDemo(['--once'], io);
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(io.err()).toContain('kdp-demo: the usb plugin exited with code 2; the last lines of its log:');
    expect(io.err()).toContain('usb-device-plugin: config.yaml: resources: broken');
    expect(io.out()).toContain('! [usb] usb-device-plugin: config.yaml: resources: broken');
    rmSync(keptDir(io.err()), { recursive: true, force: true });
    bundlePlugins(outDir);
  }, 60_000);

  it('names the plugin of kdp-device-plugins that never registers, with its lines and the process-wide ones', async () => {
    const lines = [
      { level: 'info', msg: 'a process-wide line' },
      { level: 'info', plugin: 'fpga', msg: 'an FPGA line' },
      { level: 'info', plugin: 'gpu', msg: 'waiting for GPUs that never come' },
    ];
    fakeBundle(
      'device-plugins',
      `${lines.map((l) => `process.stderr.write(${JSON.stringify(`${JSON.stringify(l)}\n`)});`).join('\n')}\nsetInterval(() => undefined, 1000);\n`,
    );
    const io = captureIo({ timeoutMs: 4000 });
    const code = await runDemo(['--once', '--all-in-one'], io);
    expect(code).toBe(1);
    expect(io.err()).toContain(
      'kdp-demo: the gpu plugin did not register all devices of nvidia.com/gpu, amd.com/gpu within 4 s; the last lines of its log:',
    );
    expect(io.err()).toContain('waiting for GPUs that never come');
    expect(io.err()).toContain('a process-wide line');
    expect(io.err()).not.toContain('an FPGA line');
    expect(io.out()).toContain('Stopped kdp-device-plugins with SIGTERM (exit code SIGTERM).');
    const dir = keptDir(io.err());
    expect(readFileSync(join(dir, 'plugins.log'), 'utf8')).toContain(
      '[fpga] {"level":"info","plugin":"fpga"',
    );
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('fails at once when kdp-device-plugins exits, naming the process (exit 1)', async () => {
    fakeBundle(
      'device-plugins',
      `process.stderr.write('kdp-device-plugins: --gpu-config: no such file\\n');\nprocess.exit(2);\n`,
    );
    const io = captureIo({ timeoutMs: 20_000 });
    const started = Date.now();
    const code = await runDemo(['--once', '--all-in-one'], io);
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(io.err()).toContain(
      'kdp-demo: the kdp-device-plugins process exited with code 2; the last lines of its log:',
    );
    expect(io.out()).toContain('! [kdp-device-plugins] kdp-device-plugins: --gpu-config: no such file');
    expect(io.out()).toContain('Stopped kdp-device-plugins with SIGTERM (exit code 2).');
    rmSync(keptDir(io.err()), { recursive: true, force: true });
  }, 60_000);

  it('keeps running after the steps until interrupted, then stops the plugins and cleans up (exit 0)', async () => {
    let interrupt: () => void = () => undefined;
    let running: () => void = () => undefined;
    const reachedEnd = new Promise<void>((resolve) => (running = resolve));
    let out = '';
    const io = captureIo({
      onInterrupt: (handler) => {
        interrupt = handler;
        return () => undefined;
      },
      write: (text) => {
        out += text;
        if (text.includes('Ctrl-C stops')) running();
      },
    });
    const result = runDemo([], io);
    await reachedEnd;
    expect(out).not.toContain('All steps passed');
    interrupt();
    expect(await result).toBe(0);
    expect(out).toContain('Interrupted.');
    expect(out).toContain('exit codes: gpu 0, sriov 0, infiniband 0, usb 0, fpga 0');
    const removed = /Removed (\S+)\.\n$/.exec(out)?.[1];
    expect(existsSync(removed as string)).toBe(false);
  }, 120_000);
});
