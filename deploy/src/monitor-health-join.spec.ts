import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSampleNode, type SampleNode } from '@kdp/demo';
import { createKubeletSim, type KubeletSim } from '@kdp/kubelet-sim';
import { bundleEntry, spawnPlugin, type EntryBundle, type PluginProcess } from '@kdp/kubelet-sim/testing';
import { podSpecOf, resolvedArgs, type PodContainer, type PodPlacement } from './resolved-args';
import { deployDir, repoRoot } from './deploy-dir';
import type { KubeObject } from './kube-object';
import { monitorName, monitorScrapeTargets, pluginDaemonSets } from './monitor-reach-problems';
import { kustomizeBuild } from './kustomize-build';

// `kubectl apply -k deploy/device-plugins` and `deploy/all` on a node, played here: the plugin (the all-in-one,
// or the GPU plugin of deploy/all) and device-monitor run as processes with the rendered DaemonSets' own args
// (host paths moved under a temp dir, the sample node's trees at /host/sys and /host/dev), kubelet-sim plays the
// kubelet (device plugins and pod-resources), and 127.0.0.1 plays the node's IP. The plugin listens on a free port
// instead of its rendered one, and the monitor's port list is rewritten accordingly, as the node's port (a
// hostPort, or hostNetwork) leads to the plugin's; deploy/all's other four ports lead nowhere (those plugins do
// not run on this node). Then the monitor's /metrics must show the devices a pod holds with their health, and
// follow a device that fails.

/** Generous bounds: other suites may share this small machine. */
const WAIT_MS = 60_000;
/** Where the pods run: 127.0.0.1 plays the node's IP. */
const node: PodPlacement = { nodeIp: '127.0.0.1', podIp: '127.0.0.1', nodeName: 'node-1' };

let work: string;
let sample: SampleNode;
let sim: KubeletSim | undefined;
let plugin: PluginProcess | undefined;
let monitor: PluginProcess | undefined;
let faulted = false;
const bundles = new Map<string, EntryBundle>();

/** A host path as this test lays the node out: the sample node's sysfs and /dev, everything else under `work`. */
function local(path: string): string {
  for (const [prefix, root] of [
    ['/host/sys', sample.sysfsRoot],
    ['/host/dev', sample.devRoot],
  ] as const) {
    if (path === prefix || path.startsWith(`${prefix}/`)) return root + path.slice(prefix.length);
  }
  return join(work, path);
}

/** The container's resolved args with absolute paths moved by `local` and `--metrics-address` on a free port. */
function localArgs(container: PodContainer, daemonSet: KubeObject): string[] {
  return resolvedArgs(podSpecOf(daemonSet), container, node).map((arg) => {
    const [flag, value] = arg.split(/=(.*)/s) as [string, string | undefined];
    if (flag === '--metrics-address') return `${flag}=127.0.0.1:0`;
    return value?.startsWith('/') ? `${flag}=${local(value)}` : arg;
  });
}

/** The JSON log line of `child` whose msg is `message`, waiting for more output while it is not there. */
async function logLine(child: PluginProcess, message: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    for (const line of child.stderr().split('\n')) {
      if (!line.startsWith('{')) continue;
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry['msg'] === message) return entry;
    }
    if (child.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`no "${message}" in the log:\n${child.stderr()}`);
    await Promise.race([new Promise((resolve) => child.child.stderr?.once('data', resolve)), child.exited]);
  }
}

/** Scrapes `url` until `predicate` holds for its text (the monitor polls every second), or fails with the last. */
async function metricsUntil(
  url: string,
  predicate: (text: string) => boolean,
  what: string,
): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  let text = '';
  while (Date.now() < deadline) {
    text = await (await fetch(url)).text();
    if (predicate(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} not seen within ${WAIT_MS} ms; last /metrics:\n${text}`);
}

/**
 * `count` distinct ports of 127.0.0.1 where nothing listens: bound by the kernel's choice, all at once, then closed.
 * Bound one after another, each closed before the next, the kernel may hand out the same port twice (seen in CI).
 */
async function closedPorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  await Promise.all(
    servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))),
  );
  const ports = servers.map((server) => (server.address() as { port: number }).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

const bundleSources: Record<string, { dir: string; external: string[] }> = {
  'kdp-device-plugins': { dir: 'device-plugins', external: ['koffi', 'usb'] },
  'gpu-device-plugin': { dir: 'plugin-gpu', external: ['koffi'] },
  [monitorName]: { dir: 'monitor', external: [] },
};

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'kdp-mhj-'));
  sample = createSampleNode();
  for (const [binary, { dir, external }] of Object.entries(bundleSources))
    bundles.set(binary, bundleEntry(join(repoRoot, 'packages', dir, 'src', 'main.ts'), { external }));
}, 120_000);

afterEach(async () => {
  await monitor?.kill();
  await plugin?.kill();
  await sim?.close();
  [monitor, plugin, sim] = [undefined, undefined, undefined];
  if (faulted) sample.fault.recover();
  faulted = false;
});

afterAll(() => {
  sample.remove();
  bundles.forEach((bundle) => bundle.remove());
  rmSync(work, { recursive: true, force: true });
});

const cases = [
  { build: 'device-plugins', pluginName: 'kdp-device-plugins', ports: [9400] },
  { build: 'all', pluginName: 'gpu-device-plugin', ports: [9401, 9402, 9403, 9404, 9405] },
];

it.each(cases)(
  "deploy/$build: the monitor, as rendered, joins $pluginName's device health to the pods holding the devices",
  async ({ build, pluginName, ports }) => {
    const objects = kustomizeBuild(join(deployDir, build));
    const pluginDs = pluginDaemonSets(objects).find((ds) => ds.metadata.name === pluginName) as KubeObject;
    const monitorDs = objects.find(
      (o) => o.kind === 'DaemonSet' && o.metadata.name === monitorName,
    ) as KubeObject;
    const pluginPod = podSpecOf(pluginDs);
    const pluginContainer = pluginPod.containers[0] as PodContainer;
    const monitorContainer = podSpecOf(monitorDs).containers[0] as PodContainer;
    const renderedPort = Number(
      /:(\d+)$/.exec(
        resolvedArgs(pluginPod, pluginContainer, node).find((a) => a.startsWith('--metrics-address=')) ?? '',
      )?.[1],
    );

    // The node: every mounted directory, the ConfigMaps' files where they are mounted.
    rmSync(join(work, 'var'), { recursive: true, force: true });
    for (const mount of [...(pluginContainer.volumeMounts ?? []), ...(monitorContainer.volumeMounts ?? [])])
      mkdirSync(local(mount.mountPath), { recursive: true });
    for (const volume of pluginPod.volumes ?? []) {
      const mount = pluginContainer.volumeMounts?.find((m) => m.name === volume.name);
      const configMap = objects.find(
        (o) => o.kind === 'ConfigMap' && o.metadata.name === volume.configMap?.name,
      );
      for (const [key, text] of Object.entries((configMap?.['data'] ?? {}) as Record<string, string>))
        writeFileSync(join(local(mount?.mountPath ?? '/nowhere'), key), text);
    }
    const podResources = resolvedArgs(podSpecOf(monitorDs), monitorContainer, node)
      .find((arg) => arg.startsWith('--pod-resources-socket='))
      ?.split('=')[1] as string;
    sim = await createKubeletSim({
      dir: local('/var/lib/kubelet/device-plugins'),
      podResourcesSocket: local(podResources),
    });

    // The plugin, with its DaemonSet's args. The container's own /proc shows the host's driver files (and, on the
    // host network, its routes): here the sample node's procfs.
    const env = { ...process.env, NODE_PATH: join(repoRoot, 'node_modules') };
    plugin = spawnPlugin(
      bundles.get(pluginName)?.path as string,
      [...localArgs(pluginContainer, pluginDs), `--proc-root=${sample.procRoot}`],
      env,
    );
    const served = await logLine(plugin, 'serving /metrics, /healthz and /readyz');
    const pluginPort = Number(new URL(served['url'] as string).port);
    const gpu = await sim.until('nvidia.com/gpu', (state) => state.healthy.length === 2, WAIT_MS);
    const held = await sim.admit({
      pod: 'trainer',
      namespace: 'ml',
      container: 'main',
      resource: gpu.name,
      count: 2,
    });

    // The monitor, with its DaemonSet's args: the node's port of this plugin leads to the plugin's free port, the
    // ports of plugins that do not run here lead nowhere.
    expect(monitorScrapeTargets(monitorDs, node)).toEqual(ports.map((port) => ({ host: node.nodeIp, port })));
    const nodePorts = new Map<number, number>();
    const nowhere = await closedPorts(ports.length);
    ports.forEach((port, i) =>
      nodePorts.set(port, port === renderedPort ? pluginPort : (nowhere[i] as number)),
    );
    const monitorArgs = localArgs(monitorContainer, monitorDs).map((arg) =>
      arg.startsWith('--plugin-metrics-ports=')
        ? `--plugin-metrics-ports=${arg
            .split('=')[1]
            ?.split(',')
            .map((port) => nodePorts.get(Number(port)))
            .join(',')}`
        : arg,
    );
    monitor = spawnPlugin(bundles.get(monitorName)?.path as string, monitorArgs, env);
    const started = await logLine(monitor, 'device-monitor started');
    const endpointOf = (port: number) => `http://127.0.0.1:${nodePorts.get(port)}/metrics`;
    expect(started['pluginMetrics']).toEqual(ports.map(endpointOf));
    const url = `http://${started['metricsAddress'] as string}/metrics`;

    const health = (device: string, value: 0 | 1) =>
      `kdp_container_device_health{namespace="ml",pod="trainer",container="main",resource="nvidia.com/gpu",device="${device}"} ${value}`;
    const text = await metricsUntil(
      url,
      (t) => held.deviceIds.every((device) => t.includes(health(device, 1))),
      'health 1 for both GPUs of ml/trainer',
    );
    for (const port of ports) {
      const here = port === renderedPort;
      expect(text).toContain(`kdp_monitor_plugin_present{endpoint="${endpointOf(port)}"} ${here ? 1 : 0}`);
      expect(text.includes(`kdp_monitor_plugin_up{endpoint="${endpointOf(port)}"} 1`)).toBe(here);
      expect(text).toContain(`kdp_monitor_plugin_scrape_errors_total{endpoint="${endpointOf(port)}"} 0`);
    }

    // A GPU loses its device node: the plugin marks it unhealthy, the monitor shows it on the pod holding it.
    expect(held.deviceIds).toContain(sample.fault.deviceId);
    sample.fault.fail();
    faulted = true;
    const failed = await metricsUntil(
      url,
      (t) => t.includes(health(sample.fault.deviceId, 0)),
      'health 0 of the failed GPU',
    );
    const other = held.deviceIds.find((device) => device !== sample.fault.deviceId) as string;
    expect(failed).toContain(health(other, 1));

    expect(await monitor.stop()).toEqual([0, null]);
  },
  180_000,
);
