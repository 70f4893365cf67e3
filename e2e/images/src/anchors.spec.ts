import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createKubeletSim } from '@kdp/kubelet-sim';
import { buildNvidiaMachine } from '@kdp/plugin-gpu/testing';
import {
  nvidiaHelmChart,
  nvidiaStaticDaemonSet,
  type ContainerSpec,
} from './anchor-specs/nvidia-container-specs';
import { missingPrerequisites } from './prerequisites';
import { bindIntoContainer } from './bind-into-container';
import { createRuncContainer, runInContainer } from './runc-container';

const run = promisify(execFile);
const repo = resolve(__dirname, '../../..');
const builder = join(repo, 'tools/image/build-images.mjs');

/** Each image's anchor links (paths inside the image) and the binary each one runs. */
const links: Record<string, Record<string, string>> = {
  gpu: {
    '/usr/bin/nvidia-device-plugin': 'gpu-device-plugin',
    '/usr/bin/config-manager': 'config-manager',
    '/root/k8s-device-plugin': 'gpu-device-plugin',
    '/usr/local/bin/intel_gpu_device_plugin': 'gpu-device-plugin',
  },
  sriov: { '/usr/bin/sriovdp': 'sriov-device-plugin', '/entrypoint.sh': 'sriov-device-plugin' },
  infiniband: { '/bin/k8s-rdma-shared-dp': 'infiniband-device-plugin' },
  usb: { '/generic-device-plugin': 'usb-device-plugin' },
  fpga: { '/usr/local/bin/intel_fpga_device_plugin': 'fpga-device-plugin' },
  'device-plugins': {
    '/usr/bin/nvidia-device-plugin': 'gpu-device-plugin',
    '/usr/bin/config-manager': 'config-manager',
    '/root/k8s-device-plugin': 'gpu-device-plugin',
    '/usr/local/bin/intel_gpu_device_plugin': 'gpu-device-plugin',
    '/usr/bin/sriovdp': 'sriov-device-plugin',
    '/entrypoint.sh': 'sriov-device-plugin',
    '/bin/k8s-rdma-shared-dp': 'infiniband-device-plugin',
    '/generic-device-plugin': 'usb-device-plugin',
    '/usr/local/bin/intel_fpga_device_plugin': 'fpga-device-plugin',
  },
};
const names = Object.keys(links);

const unmet = missingPrerequisites();
const describeImages = unmet === undefined || process.env['CI'] !== undefined ? describe : describe.skip;

describeImages("anchors' binary names in the images (amd64 under runc)", () => {
  let work: string;
  const layout = (name: string) => `${join(work, 'images', name, 'oci')}:0.1.0-amd64`;
  let seq = 0;
  const bundle = () => {
    const dir = join(work, `bundle-${++seq}`);
    mkdirSync(dir);
    return dir;
  };

  beforeAll(async () => {
    if (unmet !== undefined) throw new Error(`e2e-images cannot run in CI: ${unmet}`);
    work = mkdtempSync(join(tmpdir(), 'kdp-e2ea-'));
    await run(process.execPath, [builder, ...names, '--arch', 'amd64', '--out', join(work, 'images')], {
      cwd: repo,
      maxBuffer: 16 * 1024 * 1024,
    });
  }, 600_000);
  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it.each(names)(
    '%s: every anchor name is a link to /app/main.js and runs it by that name',
    async (name) => {
      const rootfs = join(work, `unpacked-${name}`);
      await run('umoci', ['unpack', '--image', layout(name), rootfs]);
      for (const path of Object.keys(links[name] ?? {}))
        expect([path, readlinkSync(join(rootfs, 'rootfs', path))]).toEqual([path, '/app/main.js']);
      expect(readFileSync(join(rootfs, 'rootfs/app/main.js'), 'utf8').split('\n')[0]).toBe(
        '#!/nodejs/bin/node',
      );
      for (const [path, binary] of Object.entries(links[name] ?? {})) {
        // As a manifest writes it: a bare name is found on the image's PATH, `./x` in the working directory.
        const dir = path.slice(0, path.lastIndexOf('/')) || '/';
        const base = path.slice(path.lastIndexOf('/') + 1);
        const command = ['/usr/bin', '/usr/local/bin', '/bin'].includes(dir) ? base : `./${base}`;
        const result = await runInContainer({
          image: layout(name),
          bundle: bundle(),
          id: `kdp-e2ea-${process.pid}-${seq}`,
          args: ['--version'],
          command: [command],
          cwd: dir,
          readOnly: [],
          writable: [],
        });
        expect({ path, ...result }).toEqual({ path, code: 0, output: `${binary} 0.1.0\n` });
      }
    },
    300_000,
  );

  /**
   * Runs `spec` as its pod would run it on the GPU fixture node: the node's /sys, device nodes and
   * /proc/driver where the host's would be, the device-plugins directory where the manifest mounts it, `files` (host
   * path → container path) as its other volumes; resolves once kubelet-sim saw nvidia.com/gpu register.
   */
  async function registers(name: string, spec: ContainerSpec, files: Record<string, string> = {}) {
    const node = buildNvidiaMachine();
    const dir = mkdtempSync(join(tmpdir(), 'kdp-dp-'));
    const sim = await createKubeletSim({ dir });
    const devices = readdirSync(node.devRoot).map((entry) => ({
      source: join(node.devRoot, entry),
      destination: `/dev/${entry}`,
      readOnly: true,
    }));
    const container = await createRuncContainer({
      image: layout(name),
      bundle: bundle(),
      id: `kdp-e2ea-${process.pid}-${seq}`,
      ...(spec.command !== undefined ? { command: spec.command } : {}),
      args: spec.args ?? (spec.command === undefined ? ['serve'] : []),
      env: spec.env,
      readOnly: [],
      writable: [],
      binds: [
        { source: node.root, destination: '/sys', readOnly: true },
        ...devices,
        { source: node.procRoot, destination: '/kdp-node/proc', readOnly: true },
        { source: dir, destination: spec.devicePluginDir, readOnly: false },
        ...Object.entries(files).map(([source, destination]) => ({ source, destination, readOnly: false })),
      ],
      // The node's driver files in the container's own procfs before the plugin starts, where the host's NVIDIA
      // driver's would be; runc refuses a bind under /proc in the spec.
      beforeStart: (pid) => bindIntoContainer(pid, '/kdp-node/proc/driver', '/proc/driver'),
    });
    try {
      const state = await sim
        .until('nvidia.com/gpu', (now) => now.registered, 60_000)
        .catch((error: Error) => {
          throw new Error(`${error.message}\n${container.log()}`);
        });
      expect(state).toMatchObject({ name: 'nvidia.com/gpu', registered: true });
    } finally {
      await container.remove();
      await sim.close();
      node.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("NVIDIA's static DaemonSet (no command, no args, its env) registers nvidia.com/gpu", async () => {
    await registers('gpu', nvidiaStaticDaemonSet);
  }, 120_000);

  /**
   * Runs the chart's config-manager init container (its command and env, NODE_NAME from the pod's node) in
   * `name`'s image against a fake API server over TLS, reached as a pod reaches it (KUBERNETES_SERVICE_HOST and
   * the service account's token and CA); `configs` is the ConfigMap volume, `config` the emptyDir it fills.
   */
  async function configManagerInit(name: string, configs: string, config: string): Promise<void> {
    const tls = mkdtempSync(join(tmpdir(), 'kdp-tls-'));
    const key = join(tls, 'tls.key');
    const crt = join(tls, 'tls.crt');
    const account = join(tls, 'serviceaccount');
    mkdirSync(account);
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      crt,
    ]);
    writeFileSync(join(account, 'token'), 'e2e-token\n');
    writeFileSync(join(account, 'ca.crt'), readFileSync(crt));
    const requests: string[] = [];
    const api = createHttpsServer({ key: readFileSync(key), cert: readFileSync(crt) }, (req, res) => {
      requests.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      if (req.url !== '/api/v1/nodes/node-7' || req.headers.authorization !== 'Bearer e2e-token') {
        res.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"forbidden"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Node',
          metadata: { name: 'node-7', labels: { 'kubernetes.io/os': 'linux' } },
        }),
      );
    });
    await new Promise<void>((listening) => api.listen(0, '127.0.0.1', listening));
    try {
      const { init } = nvidiaHelmChart;
      const result = await runInContainer({
        image: layout(name),
        bundle: bundle(),
        id: `kdp-e2ea-${process.pid}-${seq}`,
        command: init.command,
        args: [],
        env: {
          ...init.env,
          NODE_NAME: 'node-7',
          KUBERNETES_SERVICE_HOST: '127.0.0.1',
          KUBERNETES_SERVICE_PORT: String((api.address() as AddressInfo).port),
        },
        hostNetwork: true,
        readOnly: [],
        writable: [],
        binds: [
          { source: configs, destination: '/available-configs', readOnly: true },
          { source: config, destination: '/config', readOnly: false },
          { source: account, destination: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
        ],
      });
      expect({ code: result.code, output: result.code === 0 ? '' : result.output }).toEqual({
        code: 0,
        output: '',
      });
      expect(requests).toContain('GET /api/v1/nodes/node-7 Bearer e2e-token');
    } finally {
      await new Promise((closed) => api.close(closed));
      rmSync(tls, { recursive: true, force: true });
    }
  }

  it.each(['gpu', 'device-plugins'])(
    "%s: NVIDIA's Helm chart's config-manager init container (ONESHOT=true) writes /config/config.yaml, then its plugin container (command nvidia-device-plugin, CONFIG_FILE) registers nvidia.com/gpu",
    async (name) => {
      // The ConfigMap volume as the kubelet writes it: each key a link into ..data; the chart's one key, `config`.
      const configs = mkdtempSync(join(tmpdir(), 'kdp-configs-'));
      const config = mkdtempSync(join(tmpdir(), 'kdp-config-'));
      mkdirSync(join(configs, '..data'));
      writeFileSync(join(configs, '..data', 'config'), nvidiaHelmChart.config);
      symlinkSync(join('..data', 'config'), join(configs, 'config'));
      try {
        // No label on the node, no DEFAULT_CONFIG: FALLBACK_STRATEGIES named (no key `default`), then single.
        await configManagerInit(name, configs, config);
        expect(readFileSync(join(config, 'config.yaml'), 'utf8')).toBe(nvidiaHelmChart.config);
        await registers(name, nvidiaHelmChart.plugin, {
          [config]: '/config',
          [configs]: '/available-configs',
        });
      } finally {
        rmSync(configs, { recursive: true, force: true });
        rmSync(config, { recursive: true, force: true });
      }
    },
    240_000,
  );
});
