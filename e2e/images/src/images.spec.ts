import { execFile, execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import { createKubeletSim, runConformance } from '@kdp/kubelet-sim';
import { esbuildInputs, packagesOf } from './bundle-metafile';
import { runImageNode, spawnImageNode, type ImageArch, type ImageNodeResult } from './image-node';
import { foreignMappings, mappedFiles } from './mapped-libraries';
import { buildMultiPluginNode, buildNodeFixture, type NodeFixture } from './node-fixtures';
import { blobPath, imageLayers, readJsonBlob, tagged, type ImageIndex, type Manifest } from './oci-layout';
import { missingPrerequisites } from './prerequisites';
import { createRuncContainer, runInContainer, type RuncContainer } from './runc-container';
import { createSbomValidator, sbomFiles, sbomProblems, type Sbom } from './sbom-check';

const run = promisify(execFile);
const repo = resolve(__dirname, '../../..');
const builder = join(repo, 'tools/image/build-images.mjs');
const plugins = ['gpu', 'sriov', 'infiniband', 'usb', 'fpga'] as const;
const allImages = [...plugins, 'device-plugins', 'monitor'] as const;
const arches = ['amd64', 'arm64'] as const;
const imageLock = JSON.parse(readFileSync(join(repo, 'tools/image/image-lock.json'), 'utf8')) as {
  node: { version: string; packages: Record<string, { name: string; integrity: string }> };
};
const packageLock = (
  JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; license?: string; integrity?: string }>;
  }
).packages;

interface ImageSummary {
  readonly binary: string;
  readonly version: string;
  readonly index: string;
  readonly layout: string;
  readonly archive: string;
  readonly images: ReadonlyArray<{
    readonly arch: ImageArch;
    readonly digest: string;
    readonly compressed: number;
    readonly debs: ReadonlyArray<{ name: string; version: string; url: string; sha256: string }>;
    readonly sbom: { readonly file: string; readonly digest: string; readonly manifest: string };
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

/** The commit checked out, as the image builder reads it for the revision label. */
function gitHead(): string {
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
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

/** The addon packages each image may hold under /app/node_modules (`{arch}`: x64 or arm64, npm's names). */
const koffi = ['@koromix/koffi-linux-{arch}', 'koffi'];
const addons: Record<string, string[]> = {
  // koffi in every plugin: NVML in gpu's, and glibc's malloc_trim in all of them.
  gpu: koffi,
  sriov: koffi,
  infiniband: koffi,
  usb: [...koffi, 'node-gyp-build', 'usb'],
  fpga: koffi,
  // The all-in-one binary: the union of the plugins'.
  'device-plugins': [...koffi, 'node-gyp-build', 'usb'],
  monitor: [],
};
const npmArch = { amd64: 'x64', arm64: 'arm64' } as const;
const triplet = { amd64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' } as const;
const loader = { amd64: 'ld-linux-x86-64.so.2', arm64: 'ld-linux-aarch64.so.1' } as const;

/** The native addons each image's processes load (required as they exit, in the runs under qemu). */
const addonModules: Record<string, string[]> = {
  gpu: ['/app/node_modules/koffi'],
  sriov: ['/app/node_modules/koffi'],
  infiniband: ['/app/node_modules/koffi'],
  usb: ['/app/node_modules/koffi', '/app/node_modules/usb'],
  fpga: ['/app/node_modules/koffi'],
  'device-plugins': ['/app/node_modules/koffi', '/app/node_modules/usb'],
};

/**
 * The files of the image (rootfs-relative) a run of its Node on `arch` must have mapped with `modules`
 * required: Node, the loader, libc, libm, libstdc++ and libgcc_s, and each addon's binary (usb's with libudev).
 */
function expectedMappings(arch: ImageArch, modules: readonly string[]): string[] {
  const lib = (soname: string): string => `lib/${triplet[arch]}/${soname}`;
  const files = [
    'nodejs/bin/node',
    ...[loader[arch], 'libc.so.6', 'libm.so.6', 'libstdc++.so.6', 'libgcc_s.so.1'].map(lib),
  ];
  if (modules.includes('/app/node_modules/koffi')) {
    files.push(`app/node_modules/@koromix/koffi-linux-${npmArch[arch]}/linux_${npmArch[arch]}/koffi.node`);
  }
  if (modules.includes('/app/node_modules/usb')) {
    const flavour = arch === 'arm64' ? 'armv8' : 'glibc';
    files.push(
      `app/node_modules/usb/prebuilds/linux-${npmArch[arch]}/node.napi.${flavour}.node`,
      lib('libudev.so.1'),
    );
  }
  return files.sort();
}

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

describeImages('plugin images (amd64 under runc, arm64 under qemu-user-static, SBOMs)', () => {
  let work: string;
  let images: Map<string, ImageSummary>;
  const memory = new Map<string, { registered: number; peak: number; anon: number }>();
  const rootfsOf = new Map<string, Promise<string>>();
  let headAtBuild: string;

  beforeAll(async () => {
    if (unmet !== undefined) throw new Error(`e2e-images cannot run in CI: ${unmet}`);
    work = mkdtempSync(join(tmpdir(), 'kdp-e2ei-'));
    headAtBuild = gitHead();
    // One build of all seven images for both architectures serves every test below.
    images = await buildImages(join(work, 'images'), allImages, 'amd64,arm64');
  }, 600_000);

  it('builds the same digests (images, SBOMs, index) from the same inputs, for an index of amd64 and arm64', async () => {
    const summary = images.get('fpga');
    const again = (await buildImages(join(work, 'again'), ['fpga'], 'amd64,arm64')).get('fpga');
    expect(summary?.images.map((entry) => entry.arch)).toEqual(['amd64', 'arm64']);
    // HEAD is an input (revision label, created time): a commit made while this suite runs shows up here.
    expect({ head: gitHead(), index: again?.index }).toEqual({ head: headAtBuild, index: summary?.index });
    expect(again?.images).toEqual(summary?.images);
    for (const entry of summary?.images ?? []) {
      const sbom = (build: ImageSummary | undefined): Buffer =>
        readFileSync(join(dirname(build?.layout ?? ''), entry.sbom.file));
      expect(sbom(again).equals(sbom(summary))).toBe(true);
    }
    for (const entry of summary?.images ?? []) {
      // Without a strip tool for an architecture (binutils-aarch64-linux-gnu for arm64) Node ships unstripped.
      expect(entry).toMatchObject({ strip: expect.any(String) });
      expect(entry.compressed).toBeLessThan(45_000_000);
    }
  }, 600_000);

  /** `name`'s image for `arch`, unpacked once with `umoci unpack`; resolves to its rootfs. */
  function unpacked(name: string, arch: ImageArch): Promise<string> {
    const key = `${name}-${arch}`;
    if (!rootfsOf.has(key)) {
      const image = images.get(name);
      const dir = join(work, `unpacked-${key}`);
      rootfsOf.set(
        key,
        run('umoci', ['unpack', '--image', `${image?.layout}:${image?.version}-${arch}`, dir]).then(() =>
          join(dir, 'rootfs'),
        ),
      );
    }
    return rootfsOf.get(key) as Promise<string>;
  }

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
    expect(image?.images.map((entry) => entry.arch)).toEqual(['amd64', 'arm64']);
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
        // The recommended checks too (re-registration after a dropped stream, health recovery): a WARN fails.
        strict: true,
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

  it.each(allImages.flatMap((name) => arches.map((arch) => [name, arch] as const)))(
    '%s (%s): the image holds Node, its libraries and the app, and nothing else',
    async (plugin, arch) => {
      const rootfs = await unpacked(plugin, arch);
      const files = filesUnder(rootfs);
      // Besides those: only the anchors' binary names, links to the entry (anchors.spec.ts runs them).
      const entryLink = (file: string): boolean =>
        lstatSync(join(rootfs, file)).isSymbolicLink() && readlinkSync(join(rootfs, file)) === '/app/main.js';
      expect(
        files.filter((file) => !/^(nodejs|lib|lib64|app|usr\/share\/doc)\//.test(file) && !entryLink(file)),
      ).toEqual([]);
      const tools = ['sh', 'bash', 'dash', 'busybox', 'apt', 'apt-get', 'dpkg', 'npm', 'npx', 'corepack'];
      expect(files.filter((file) => tools.includes(basename(file)))).toEqual([]);
      const loaderLink = arch === 'amd64' ? `lib64/${loader.amd64}` : `lib/${loader.arm64}`;
      expect(files).toEqual(
        expect.arrayContaining([
          'nodejs/bin/node',
          'app/main.js',
          'app/bundle.js',
          'app/bundle.cache',
          loaderLink,
        ]),
      );
      const modules = files
        .filter((file) => file.startsWith('app/node_modules/'))
        .map((file) => relative('app/node_modules', file).split('/'))
        .map((parts) => (parts[0]?.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/'));
      expect([...new Set(modules)].sort()).toEqual(
        (addons[plugin] ?? []).map((name) => name.replace('{arch}', npmArch[arch])),
      );
    },
  );

  /** Runs `script` with the amd64 image's Node under runc (`node -e`, the image's environment); its exit and output. */
  const nodeInImage = async (plugin: string, name: string, script: string) => {
    const image = images.get(plugin);
    const bundle = join(work, `${name}-${plugin}`);
    mkdirSync(bundle);
    return runInContainer({
      image: `${image?.layout}:${image?.version}-amd64`,
      bundle,
      id: `kdp-e2e-${name}-${plugin}-${process.pid}`,
      args: ['/nodejs/bin/node', '-e', script],
      readOnly: [],
      writable: [],
    });
  };

  it.each([
    ['gpu', 'koffi'],
    ['usb', 'usb'],
    ['device-plugins', 'koffi'],
    ['device-plugins', 'usb'],
  ])(
    '%s: its native addon (%s) loads inside the image, with only the files shipped',
    async (plugin, addon) => {
      const script = `const m = require('/app/node_modules/${addon}'); console.log(typeof m, Object.keys(m).length > 0)`;
      expect(await nodeInImage(plugin, `addon-${addon}`, script)).toEqual({
        code: 0,
        output: 'object true\n',
      });
    },
  );

  it.each(['gpu', 'sriov', 'infiniband', 'usb', 'fpga', 'device-plugins'])(
    "%s: koffi binds the image's glibc malloc_trim and madvise, which the plugin runtime calls once idle",
    async (plugin) => {
      // The runtime's signatures (malloc-trim.ts, page-out.ts); madvise of an empty range with MADV_PAGEOUT is 0.
      const script =
        "const libc = require('/app/node_modules/koffi').load('libc.so.6');" +
        " const trim = libc.func('int malloc_trim(size_t pad)');" +
        " const madvise = libc.func('int madvise(uintptr_t addr, size_t length, int advice)');" +
        ' console.log(typeof trim(0), madvise(0n, 0, 21))';
      expect(await nodeInImage(plugin, 'trim', script)).toEqual({ code: 0, output: 'number 0\n' });
    },
  );

  it.each(['gpu', 'sriov', 'infiniband', 'usb', 'fpga', 'device-plugins', 'monitor'])(
    "%s: the image's Node refuses code generated from strings and exposes gc (NODE_OPTIONS of node-runtime.json)",
    async (plugin) => {
      const script =
        "let made = 'made';" +
        " try { new Function('return 1'); } catch (error) { made = error.name; }" +
        " try { eval('1'); } catch (error) { made += ' ' + error.name; }" +
        ' console.log(made, typeof gc)';
      expect(await nodeInImage(plugin, 'codegen', script)).toEqual({
        code: 0,
        output: 'EvalError EvalError function\n',
      });
    },
  );

  it.each(['gpu', 'sriov', 'infiniband', 'usb', 'fpga', 'device-plugins', 'monitor'])(
    "%s: the image's Node trusts no bundled root certificate by default, so loading tls parses none (--use-openssl-ca)",
    async (plugin) => {
      // Without the option, the default store is Node's bundled Mozilla roots (over 100), parsed on a thread of
      // their own as soon as `tls` loads (grpc-js loads it); with it, OpenSSL's store, and the image has no /etc/ssl.
      const script =
        "const tls = require('tls');" +
        " console.log(tls.getCACertificates('default').length, tls.getCACertificates('bundled').length > 100)";
      expect(await nodeInImage(plugin, 'roots', script)).toEqual({ code: 0, output: '0 true\n' });
    },
  );

  it.each(allImages.flatMap((name) => arches.map((arch) => [name, arch] as const)))(
    "%s (%s): /app/main.js runs the bundle with the code cache the image was built with, which the image's Node accepts",
    async (name, arch) => {
      const rootfs = await unpacked(name, arch);
      const { env } = JSON.parse(readFileSync(join(repo, 'tools/image/node-runtime.json'), 'utf8')) as {
        env: Record<string, string>;
      };
      const image = images.get(name);
      const result = await runImageNode({ rootfs, arch, args: ['--version'], env }, 120_000);
      expect({ code: result.code, stdout: result.stdout, codeCache: result.codeCache }).toEqual({
        code: 0,
        stdout: `${image?.binary} ${image?.version}\n`,
        codeCache: 'accepted',
      });
      // A heap size added to the image's options keeps it; a user's NODE_OPTIONS in place of the image's (other
      // V8 options) has V8 refuse it, and the bundle is compiled as usual.
      const run = async (
        nodeOptions: string,
      ): Promise<Pick<ImageNodeResult, 'code' | 'stdout' | 'codeCache'>> => {
        const { code, stdout, codeCache } = await runImageNode(
          { rootfs, arch, args: ['--version'], env: { ...env, NODE_OPTIONS: nodeOptions } },
          120_000,
        );
        return { code, stdout, codeCache };
      };
      expect(await run(`${env['NODE_OPTIONS'] ?? ''} --max-old-space-size=200`)).toEqual({
        code: 0,
        stdout: result.stdout,
        codeCache: 'accepted',
      });
      expect(await run('--max-old-space-size=200')).toEqual({
        code: 0,
        stdout: result.stdout,
        codeCache: 'rejected',
      });
    },
    300_000,
  );

  it('gpu: once idle, the plugin pages out the code its start ran, under runc (uid 0, no capabilities, read-only root)', async () => {
    const image = images.get('gpu');
    const fixture = buildNodeFixture('gpu');
    const dir = mkdtempSync(join(tmpdir(), 'kdp-dp-'));
    const bundle = join(work, 'bundle-page-out');
    mkdirSync(bundle);
    const sim = await createKubeletSim({ dir });
    let container: RuncContainer | undefined;
    try {
      container = await createRuncContainer({
        image: `${image?.layout}:${image?.version}-amd64`,
        bundle,
        id: `kdp-e2e-page-out-${process.pid}`,
        args: ['serve', ...fixture.args, '--device-plugin-dir', dir, '--log-level', 'debug'],
        readOnly: fixture.readOnly,
        writable: [...fixture.writable, dir],
      });
      const running = container;
      await sim.until(fixture.resource, (state) => state.healthy.length > 0, 30_000);
      // Started as the image starts it, it ran from the image's code cache.
      expect((await logEntry(running, 'starting', 30_000))['codeCache']).toBe('accepted');
      // The start's collections run 10 s after its last scavenge, the page-out a second later.
      const pagedOut = await logEntry(running, 'code paged out', 60_000);
      expect({ refused: pagedOut['refused'], log: pagedOut['refused'] === 0 ? '' : running.log() }).toEqual({
        refused: 0,
        log: '',
      });
      const [before, after] = pagedOut['residentFileMiB'] as [number, number];
      // The image's Node is this container's own file: the kernel reclaims what the start paged in.
      expect(after).toBeLessThan(before / 2);
      expect((running.memoryKiB()?.rss ?? Infinity) / 1024).toBeLessThan(56);
    } finally {
      await container?.remove();
      await sim.close();
      fixture.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  /** The first JSON log entry of `container` whose `msg` is `msg`, waited for up to `timeoutMs`. */
  async function logEntry(
    container: RuncContainer,
    msg: string,
    timeoutMs: number,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const entry = container
        .log()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((e) => e['msg'] === msg);
      if (entry !== undefined) return entry;
      if (Date.now() > deadline)
        throw new Error(`no "${msg}" log entry within ${timeoutMs / 1000} s:\n${container.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /**
   * Runs `args` with `name`'s Node and bundle for both architectures (arm64 under qemu-aarch64-static), with
   * its addons required as it exits when `withAddons`; requires each run to exit 0 having mapped only files of
   * its own image, all ELF objects of its architecture (the expected ones among them), and both to print the
   * same. Returns the runs.
   */
  async function onBothArches(
    name: string,
    args: readonly string[],
    withAddons = false,
  ): Promise<Record<ImageArch, ImageNodeResult>> {
    const results: Partial<Record<ImageArch, ImageNodeResult>> = {};
    for (const arch of arches) {
      const rootfs = await unpacked(name, arch);
      const requireAtExit = withAddons ? (addonModules[name] ?? []) : [];
      const result = await runImageNode({ rootfs, arch, args, requireAtExit }, 120_000);
      expect({ arch, code: result.code, log: result.code === 0 ? '' : result.stderr }).toEqual({
        arch,
        code: 0,
        log: '',
      });
      expect(foreignMappings(result.maps, rootfs, arch)).toEqual([]);
      const expected = expectedMappings(arch, requireAtExit);
      expect(mappedFiles(result.maps)).toEqual(
        expect.arrayContaining(expected.map((file) => join(rootfs, file))),
      );
      results[arch] = result;
    }
    const both = results as Record<ImageArch, ImageNodeResult>;
    expect(both.arm64.stdout).toBe(both.amd64.stdout);
    return both;
  }

  it.each(plugins)(
    "%s: the arm64 image's Node runs its bundle under qemu-user-static (--version, discover) as amd64 does, with only the image's arm64 libraries mapped",
    async (plugin) => {
      const fixture = buildNodeFixture(plugin);
      try {
        const image = images.get(plugin);
        const version = await onBothArches(plugin, ['--version']);
        expect(version.arm64.stdout).toBe(`${image?.binary} ${image?.version}\n`);
        const discovered = await onBothArches(
          plugin,
          ['discover', '--output', 'json', ...fixture.discoverArgs],
          true,
        );
        const doc = JSON.parse(discovered.arm64.stdout) as {
          resources: Array<{ resourceName: string; devices: unknown[] }>;
        };
        const resource = doc.resources.find((entry) => entry.resourceName === fixture.resource);
        expect(resource?.devices.length).toBeGreaterThan(0);
      } finally {
        fixture.remove();
      }
    },
    300_000,
  );

  it("device-plugins: the arm64 image's Node discovers all four families of one node under qemu-user-static, as amd64 does", async () => {
    const node = buildMultiPluginNode();
    try {
      await onBothArches('device-plugins', ['--version']);
      const discovered = await onBothArches(
        'device-plugins',
        ['discover', '--output', 'json', ...node.discoverArgs],
        true,
      );
      const doc = JSON.parse(discovered.arm64.stdout) as {
        resources: Array<{ resourceName: string; devices: unknown[] }>;
      };
      expect(Object.fromEntries(doc.resources.map((r) => [r.resourceName, r.devices.length]))).toEqual(
        node.resources,
      );
    } finally {
      node.remove();
    }
  }, 300_000);

  it("monitor: the arm64 image's Node answers --version as amd64 does, and serves kubelet-sim's pod resources as metrics under qemu-user-static", async () => {
    const image = images.get('monitor');
    const version = await onBothArches('monitor', ['--version']);
    expect(version.arm64.stdout).toBe(`${image?.binary} ${image?.version}\n`);

    const dir = mkdtempSync(join(tmpdir(), 'kdp-monq-'));
    const socket = join(dir, 'pod-resources.sock');
    const sim = await createKubeletSim({ dir: join(dir, 'dp'), podResourcesSocket: socket });
    const port = await freePort();
    const rootfs = await unpacked('monitor', 'arm64');
    const monitor = spawnImageNode({
      rootfs,
      arch: 'arm64',
      args: ['--pod-resources-socket', socket, '--metrics-address', `127.0.0.1:${port}`, '--interval', '200'],
    });
    try {
      const ready = await until(async () => (await get(port, '/readyz'))?.status === 200, 60_000);
      expect({ ready, log: ready ? '' : monitor.log() }).toEqual({ ready: true, log: '' });
      const metrics = await get(port, '/metrics');
      expect(metrics?.body).toMatch(/^kdp_monitor_pod_resources_up 1$/m);
      expect(metrics?.body).toContain(`kdp_monitor_build_info{version="${image?.version}"} 1\n`);
      monitor.child.kill('SIGTERM');
      const result = await monitor.result(60_000);
      expect({ code: result.code, log: result.code === 0 ? '' : result.stderr }).toEqual({
        code: 0,
        log: '',
      });
      expect(foreignMappings(result.maps, rootfs, 'arm64')).toEqual([]);
      expect(mappedFiles(result.maps)).toEqual(
        expect.arrayContaining(expectedMappings('arm64', []).map((file) => join(rootfs, file))),
      );
    } finally {
      monitor.child.kill('SIGKILL');
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  /** The Nx project directory of each image's bundle. */
  const projectDirs: Record<string, string> = {
    ...Object.fromEntries(plugins.map((plugin) => [plugin, `packages/plugin-${plugin}`])),
    'device-plugins': 'packages/device-plugins',
    monitor: 'packages/monitor',
  };
  let validateSbom: ((document: unknown) => string[]) | undefined;

  /** The SBOM of `name`'s `arch` image as the builder wrote it beside image.json. */
  function sbomOf(name: string, arch: ImageArch): Sbom {
    const image = images.get(name);
    const file = image?.images.find((entry) => entry.arch === arch)?.sbom.file ?? '';
    return JSON.parse(readFileSync(join(dirname(image?.layout ?? ''), file), 'utf8')) as Sbom;
  }

  it.each(allImages.flatMap((name) => arches.map((arch) => [name, arch] as const)))(
    '%s (%s): the SBOM is valid CycloneDX 1.6 and lists every file of every layer with its sha256 and origin, Node, each .deb and each npm package',
    async (name, arch) => {
      const image = images.get(name);
      const entry = image?.images.find((candidate) => candidate.arch === arch);
      if (!image || !entry) throw new Error(`no ${name} ${arch} image`);
      const sbom = sbomOf(name, arch);
      validateSbom ??= createSbomValidator();
      expect(validateSbom(sbom)).toEqual([]);
      const layers = await imageLayers(image.layout, `${image.version}-${arch}`, join(work, 'layers'));
      expect(layers.map((layer) => [layer.name, layer.files.size > 0])).toEqual([
        ['runtime', true],
        ['app', true],
      ]);
      const facts = { ...entry, binary: image.binary, lock: imageLock, packageLock };
      expect(sbomProblems(sbom, layers, facts)).toEqual([]);
      const files = sbomFiles(sbom);
      const project = JSON.parse(
        readFileSync(join(repo, projectDirs[name] ?? '', 'package.json'), 'utf8'),
      ) as {
        name: string;
      };
      for (const file of ['/app/main.js', '/app/bundle.js', '/app/bundle.cache'])
        expect([file, files.get(file)?.origin.name]).toEqual([file, project.name]);
      // Each addon file comes from the npm package whose directory holds it.
      const misplaced = [...files]
        .filter(([path]) => path.startsWith('/app/node_modules/'))
        .filter(([path, { origin }]) => !path.startsWith(`/app/node_modules/${origin.name}/`));
      expect(misplaced).toEqual([]);
    },
  );

  it.each(allImages)(
    "%s: the SBOM lists exactly the packages esbuild's own metafile names as /app/bundle.js's inputs",
    async (name) => {
      const sbom = sbomOf(name, 'amd64');
      const inMain = [
        sbomFiles(sbom).get('/app/bundle.js')?.origin,
        ...sbom.components.filter((c) =>
          c.evidence?.occurrences?.some((o) => o.location === '/app/bundle.js'),
        ),
      ].map((component) => `${component?.name}@${component?.version}`);
      const inputs = await esbuildInputs(repo, projectDirs[name] ?? '');
      expect(inMain.sort()).toEqual(packagesOf(repo, inputs, packageLock));
    },
  );

  it.each(allImages)(
    '%s: each platform image has its SBOM attached in the OCI index, as an artifact whose subject is that image',
    (name) => {
      const image = images.get(name);
      if (!image) throw new Error(`no ${name} image`);
      expect(tagged(image.layout, image.version).digest).toBe(image.index);
      const index = readJsonBlob<ImageIndex>(image.layout, image.index);
      const referrers = index.manifests.filter((m) => m.platform?.architecture === 'unknown');
      expect(referrers.map((m) => m.platform)).toEqual([
        { architecture: 'unknown', os: 'unknown' },
        { architecture: 'unknown', os: 'unknown' },
      ]);
      for (const entry of image.images) {
        const attached = referrers
          .map((m) => ({ digest: m.digest, manifest: readJsonBlob<Manifest>(image.layout, m.digest) }))
          .filter(({ manifest }) => manifest.subject?.digest === entry.digest);
        expect(attached.map(({ digest }) => digest)).toEqual([entry.sbom.manifest]);
        expect(attached[0]?.manifest).toMatchObject({
          artifactType: 'application/vnd.cyclonedx+json',
          config: { mediaType: 'application/vnd.oci.empty.v1+json' },
          layers: [{ mediaType: 'application/vnd.cyclonedx+json', digest: entry.sbom.digest }],
          subject: { mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: entry.digest },
        });
        const written = readFileSync(join(dirname(image.layout), entry.sbom.file));
        expect(readFileSync(blobPath(image.layout, entry.sbom.digest)).equals(written)).toBe(true);
      }
    },
  );

  it('the oci-archive carries the SBOM artifacts: skopeo copies them back out, the index digest unchanged', async () => {
    const image = images.get('fpga');
    if (!image) throw new Error('no fpga image');
    const copy = join(work, 'from-archive');
    await run('skopeo', [
      'copy',
      '--quiet',
      '--all',
      `oci-archive:${image.archive}:${image.version}`,
      `oci:${copy}:${image.version}`,
    ]);
    expect(tagged(copy, image.version).digest).toBe(image.index);
    for (const entry of image.images) {
      expect(readJsonBlob<Manifest>(copy, entry.sbom.manifest).subject?.digest).toBe(entry.digest);
      const written = readFileSync(join(dirname(image.layout), entry.sbom.file));
      expect(readFileSync(blobPath(copy, entry.sbom.digest)).equals(written)).toBe(true);
    }
  });

  it('the SBOM checks catch an unlisted file, a wrong hash, a wrong .deb version and a schema violation', async () => {
    const image = images.get('usb');
    const entry = image?.images.find((candidate) => candidate.arch === 'arm64');
    if (!image || !entry) throw new Error('no usb arm64 image');
    const layers = await imageLayers(image.layout, `${image.version}-arm64`, join(work, 'layers'));
    const facts = { ...entry, binary: image.binary, lock: imageLock, packageLock };
    type Mutable = {
      components: Array<{
        name: string;
        version?: string;
        type?: string;
        components?: Array<{ name: string; hashes?: Array<{ content: string }> }>;
      }>;
    };
    const broken = JSON.parse(JSON.stringify(sbomOf('usb', 'arm64'))) as Mutable;
    const app = broken.components.find((c) => c.components?.some((f) => f.name === '/app/main.js'));
    if (app?.components) app.components = app.components.filter((f) => f.name !== '/app/main.js');
    const node = broken.components
      .flatMap((c) => c.components ?? [])
      .find((f) => f.name === '/nodejs/bin/node');
    if (node?.hashes?.[0]) node.hashes[0].content = '0'.repeat(64);
    const libc = broken.components.find((c) => c.name === 'libc6');
    if (libc) libc.version = '2.36-9';
    expect(sbomProblems(broken as unknown as Sbom, layers, facts)).toEqual([
      '/nodejs/bin/node: sha256 differs',
      '/app/main.js (app layer) is not listed',
      `no libc6 component with version ${entry.debs[0]?.version} and sha256 ${entry.debs[0]?.sha256}`,
    ]);
    delete broken.components[0]?.type;
    validateSbom ??= createSbomValidator();
    expect(validateSbom(broken)).toEqual(
      expect.arrayContaining(["/components/0 must have required property 'type'"]),
    );
  });
});
