import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import { createKubeletSim, runConformance } from '@kdp/kubelet-sim';
import { buildMultiPluginNode, buildNodeFixture, type NodeFixture } from './node-fixtures';
import { missingPrerequisites } from './prerequisites';
import { createRuncContainer, runInContainer, type RuncContainer } from './runc-container';

const run = promisify(execFile);
const repo = resolve(__dirname, '../../..');
const builder = join(repo, 'tools/image/build-images.mjs');
const plugins = ['gpu', 'sriov', 'infiniband', 'usb', 'fpga'] as const;

interface ImageSummary {
  readonly version: string;
  readonly index: string;
  readonly layout: string;
  readonly images: ReadonlyArray<{
    readonly arch: string;
    readonly digest: string;
    readonly compressed: number;
  }>;
}

/** Runs the image builder (as `npx nx run plugin-<x>:image` does) into `out`; returns each plugin's summary. */
async function buildImages(
  out: string,
  names: readonly string[],
  arch: string,
): Promise<Map<string, ImageSummary>> {
  await run(process.execPath, [builder, ...names, '--arch', arch, '--out', out], {
    cwd: repo,
    maxBuffer: 16 * 1024 * 1024,
  });
  return new Map(
    names.map((name) => [
      name,
      JSON.parse(readFileSync(join(out, name, 'image.json'), 'utf8')) as ImageSummary,
    ]),
  );
}

/** A TCP port nobody listens on now (the kernel's choice), for a server inside a host-network container. */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** GET `path` on 127.0.0.1:`port`; undefined while nothing answers. */
async function get(port: number, path: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: await response.text() };
  } catch {
    return undefined;
  }
}

/** Polls `condition` every 100 ms until it holds or the generous `timeoutMs` bound has passed. */
async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolveTick) => setTimeout(resolveTick, 100));
  }
  return false;
}

/** The addon packages each image may hold under /app/node_modules (amd64 names). */
const addons: Record<string, string[]> = {
  gpu: ['@koromix/koffi-linux-x64', 'koffi'],
  sriov: [],
  infiniband: [],
  usb: ['node-gyp-build', 'usb'],
  fpga: [],
  // The all-in-one binary: the union of gpu's and usb's.
  'device-plugins': ['@koromix/koffi-linux-x64', 'koffi', 'node-gyp-build', 'usb'],
  monitor: [],
};

/** Every non-directory path under `root`, relative to it. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((path) => !lstatSync(join(root, path)).isDirectory())
    .sort();
}

const unmet = missingPrerequisites();
if (unmet !== undefined && process.env['CI'] === undefined) {
  console.warn(`e2e-images: skipped (${unmet})`);
}
const describeImages = unmet === undefined || process.env['CI'] !== undefined ? describe : describe.skip;

describeImages('plugin images under runc', () => {
  let work: string;
  let images: Map<string, ImageSummary>;
  const memory = new Map<string, { registered: number; peak: number; anon: number }>();

  beforeAll(async () => {
    if (unmet !== undefined) throw new Error(`e2e-images cannot run in CI: ${unmet}`);
    work = mkdtempSync(join(tmpdir(), 'kdp-e2ei-'));
    images = await buildImages(join(work, 'images'), [...plugins, 'device-plugins', 'monitor'], 'amd64');
  }, 600_000);

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
    if (memory.size > 0) {
      const mib = (kib: number): string => `${(kib / 1024).toFixed(1)} MiB`.padStart(10);
      const lines = [...memory].map(
        ([plugin, m]) => `${plugin.padEnd(14)} ${mib(m.registered)} ${mib(m.peak)} ${mib(m.anon)}`,
      );
      console.log(
        `container      VmRSS@reg  VmRSS peak  RssAnon peak (conformance run)\n${lines.join('\n')}`,
      );
    }
  });

  /**
   * Runs `fixture`'s node in a hardened container of `name`'s amd64 image and requires the conformance suite to
   * pass against its resource (SIGTERM check included); `beforeConformance` runs first, with the container up.
   */
  async function conformanceUnderRunc(
    name: string,
    fixture: NodeFixture,
    beforeConformance?: (dir: string, container: RuncContainer) => Promise<void>,
  ): Promise<void> {
    const image = images.get(name);
    expect(image?.images.map((entry) => entry.arch)).toEqual(['amd64']);
    const dir = mkdtempSync(join(tmpdir(), 'kdp-dp-'));
    const bundle = join(work, `bundle-${name}`);
    mkdirSync(bundle);
    let container: RuncContainer | undefined;
    try {
      container = await createRuncContainer({
        image: `${image?.layout}:${image?.version}-amd64`,
        bundle,
        id: `kdp-e2e-${name}-${process.pid}`,
        args: ['serve', ...fixture.args, '--device-plugin-dir', dir, '--log-level', 'warn'],
        readOnly: fixture.readOnly,
        writable: [...fixture.writable, dir],
      });
      const running = container;
      await beforeConformance?.(dir, running);
      const seen = { registered: 0, peak: 0, anon: 0 };
      const report = await runConformance({
        dir,
        resource: fixture.resource,
        pid: running.pid,
        restarts: 1,
        registrationTimeoutMs: 30_000,
        onCheck: (check) => {
          const now = running.memoryKiB();
          if (now === undefined) return;
          if (check.id === 'registers') seen.registered = now.rss;
          seen.peak = Math.max(seen.peak, now.rss);
          seen.anon = Math.max(seen.anon, now.anon);
        },
      });
      memory.set(name, seen);
      const failed = report.checks.filter((check) => check.status === 'fail');
      expect({ failed, log: failed.length > 0 ? running.log() : '' }).toEqual({ failed: [], log: '' });
      expect(report).toMatchObject({ ok: true, resource: fixture.resource });
      expect(report.checks.map((check) => check.id)).toContain('sigterm-unlinks-socket');
      expect(await running.exited(30_000)).toBe(true);
      // Every socket of the process is gone after SIGTERM, not only the checked resource's.
      expect(readdirSync(dir).filter((file) => file !== 'kubelet.sock' && file.endsWith('.sock'))).toEqual(
        [],
      );
      expect(seen.peak).toBeGreaterThan(0);
    } finally {
      await container?.remove();
      fixture.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it.each(plugins)(
    '%s: the amd64 image passes kubelet-sim conformance under runc (read-only root, no capabilities)',
    async (plugin) => {
      await conformanceUnderRunc(plugin, buildNodeFixture(plugin));
    },
    120_000,
  );

  it('device-plugins: one container serves gpu, infiniband, usb and fpga of one node (--plugins), and the GPU resource passes conformance', async () => {
    // One bundle more in the app layer than gpu's, and still under the images' 45 MB goal.
    expect(images.get('device-plugins')?.images[0]?.compressed).toBeLessThan(45_000_000);
    const node = buildMultiPluginNode();
    await conformanceUnderRunc('device-plugins', node, async (dir, running) => {
      // A kubelet first, to see every resource of the one process register with all its devices.
      const sim = await createKubeletSim({ dir });
      try {
        const healthy: Record<string, number> = {};
        for (const [resource, count] of Object.entries(node.resources)) {
          const state = await sim
            .until(resource, (s) => s.healthy.length === count, 30_000)
            .catch((error: unknown) => {
              throw new Error(`${resource}: ${String(error)}\ncontainer log:\n${running.log()}`);
            });
          healthy[resource] = state.healthy.length;
        }
        expect(healthy).toEqual(node.resources);
        // SR-IOV is not among --plugins: nothing else registers.
        expect(
          sim
            .resources()
            .map((state) => state.name)
            .sort(),
        ).toEqual(Object.keys(node.resources).sort());
      } finally {
        await sim.close();
      }
    });
  }, 180_000);

  it("monitor: the device-monitor image serves kubelet-sim's pod resources as metrics under runc", async () => {
    const image = images.get('monitor');
    const config = JSON.parse(
      (await run('skopeo', ['inspect', '--config', `oci:${image?.layout}:${image?.version}-amd64`])).stdout,
    ) as { config: { Entrypoint: string[]; Cmd?: string[] } };
    // No `serve` default: device-monitor has no subcommands, the DaemonSet's args are its flags.
    expect(config.config).toMatchObject({ Entrypoint: ['/nodejs/bin/node', '/app/main.js'] });
    expect(config.config.Cmd ?? []).toEqual([]);

    const dir = mkdtempSync(join(tmpdir(), 'kdp-mon-'));
    const socket = join(dir, 'pod-resources.sock');
    const sim = await createKubeletSim({ dir: join(dir, 'dp'), podResourcesSocket: socket });
    const port = await freePort();
    const bundle = join(work, 'bundle-monitor');
    mkdirSync(bundle);
    let container: RuncContainer | undefined;
    try {
      container = await createRuncContainer({
        image: `${image?.layout}:${image?.version}-amd64`,
        bundle,
        id: `kdp-e2e-monitor-${process.pid}`,
        args: [
          '--pod-resources-socket',
          socket,
          '--metrics-address',
          `127.0.0.1:${port}`,
          '--interval',
          '200',
        ],
        readOnly: [],
        writable: [dir],
        hostNetwork: true,
      });
      const running = container;
      const ready = await until(async () => (await get(port, '/readyz'))?.status === 200, 60_000);
      expect({ ready, log: ready ? '' : running.log() }).toEqual({ ready: true, log: '' });
      const metrics = await get(port, '/metrics');
      expect(metrics?.body).toMatch(/^kdp_monitor_pod_resources_up 1$/m);
      expect(metrics?.body).toMatch(/^kdp_monitor_build_info\{version="0\.1\.0"\} 1$/m);
      process.kill(running.pid, 'SIGTERM');
      expect(await running.exited(30_000)).toBe(true);
    } finally {
      await container?.remove();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it.each([...plugins, 'device-plugins', 'monitor'])(
    '%s: the image holds Node, its libraries and the app, and nothing else',
    async (plugin) => {
      const image = images.get(plugin);
      const dir = join(work, `contents-${plugin}`);
      await run('umoci', ['unpack', '--image', `${image?.layout}:${image?.version}-amd64`, dir]);
      const files = filesUnder(join(dir, 'rootfs'));
      expect(files.filter((file) => !/^(nodejs|lib|lib64|app|usr\/share\/doc)\//.test(file))).toEqual([]);
      const tools = ['sh', 'bash', 'dash', 'busybox', 'apt', 'apt-get', 'dpkg', 'npm', 'npx', 'corepack'];
      expect(files.filter((file) => tools.includes(basename(file)))).toEqual([]);
      expect(files).toEqual(
        expect.arrayContaining(['nodejs/bin/node', 'app/main.js', 'lib64/ld-linux-x86-64.so.2']),
      );
      const modules = files
        .filter((file) => file.startsWith('app/node_modules/'))
        .map((file) => relative('app/node_modules', file).split('/'))
        .map((parts) => (parts[0]?.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/'));
      expect([...new Set(modules)].sort()).toEqual(addons[plugin]);
      rmSync(dir, { recursive: true, force: true });
    },
  );

  it.each([
    ['gpu', 'koffi'],
    ['usb', 'usb'],
    ['device-plugins', 'koffi'],
    ['device-plugins', 'usb'],
  ])(
    '%s: its native addon (%s) loads inside the image, with only the files shipped',
    async (plugin, addon) => {
      const image = images.get(plugin);
      const bundle = join(work, `addon-${plugin}-${addon}`);
      mkdirSync(bundle);
      const script = `const m = require('/app/node_modules/${addon}'); console.log(typeof m, Object.keys(m).length > 0)`;
      const result = await runInContainer({
        image: `${image?.layout}:${image?.version}-amd64`,
        bundle,
        id: `kdp-e2e-addon-${plugin}-${addon}-${process.pid}`,
        args: ['/nodejs/bin/node', '-e', script],
        readOnly: [],
        writable: [],
      });
      expect(result).toEqual({ code: 0, output: 'object true\n' });
    },
  );

  it('builds the same digests from the same inputs, for an index of amd64 and arm64', async () => {
    const [first, second] = [
      await buildImages(join(work, 'again-1'), ['fpga'], 'amd64,arm64'),
      await buildImages(join(work, 'again-2'), ['fpga'], 'amd64,arm64'),
    ];
    const summary = first.get('fpga');
    expect(summary?.images.map((entry) => entry.arch)).toEqual(['amd64', 'arm64']);
    expect(second.get('fpga')?.index).toBe(summary?.index);
    expect(second.get('fpga')?.images).toEqual(summary?.images);
    // The amd64 image run above is the very image of the multi-arch build.
    expect(summary?.images[0]?.digest).toBe(images.get('fpga')?.images[0]?.digest);
    for (const entry of summary?.images ?? []) {
      // Without a strip tool for an architecture (binutils-aarch64-linux-gnu for arm64) Node ships unstripped.
      expect(entry).toMatchObject({ strip: expect.any(String) });
      expect(entry.compressed).toBeLessThan(45_000_000);
    }
  }, 600_000);
});
