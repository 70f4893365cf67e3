import { join } from 'node:path';
import { expandKubeVars, podSpecOf, resolvedArgs, type PodContainer } from './resolved-args';
import { deployDir } from './deploy-dir';
import { kustomizations } from './kdp-plugins';
import type { KubeObject } from './kube-object';
import {
  monitorName,
  monitorReachProblems,
  monitorScrapeTargets,
  pluginDaemonSets,
  pluginMetricsReach,
  samplePlacement,
} from './monitor-reach-problems';
import { kustomizeBuild } from './kustomize-build';

// `kubectl apply -k deploy/all` must give per-pod device health with no extra step: in every build that ships
// the device monitor, each plugin endpoint it scrapes is served on its node's IP by a plugin DaemonSet of the
// same build, and each of those plugins is scraped.

const builds = new Map(kustomizations.map((dir) => [dir, kustomizeBuild(join(deployDir, dir))]));
const build = (dir: string): KubeObject[] => structuredClone(builds.get(dir) as KubeObject[]);
const isMonitor = (object: KubeObject) => object.kind === 'DaemonSet' && object.metadata.name === monitorName;
const withMonitor = [...builds].filter(([, objects]) => objects.some(isMonitor)).map(([dir]) => dir);
const daemonSet = (objects: KubeObject[], name: string): KubeObject =>
  objects.find((object) => object.kind === 'DaemonSet' && object.metadata.name === name) as KubeObject;
const container = (objects: KubeObject[], name: string): PodContainer =>
  podSpecOf(daemonSet(objects, name)).containers[0] as PodContainer;

describe('the device monitor reaches the plugins it reads', () => {
  it('ships in deploy/all, deploy/device-plugins and overlays/all-metrics; deploy/monitor alone is their building block', () => {
    expect(withMonitor.sort()).toEqual(['all', 'device-plugins', 'monitor', 'overlays/all-metrics']);
    expect(pluginDaemonSets(build('monitor'))).toEqual([]);
  });

  it.each(withMonitor.filter((dir) => dir !== 'monitor'))(
    'deploy/%s: one scrape target per plugin DaemonSet, each published on the node IP where the monitor looks',
    (dir) => {
      const objects = build(dir);
      expect(monitorReachProblems(objects)).toEqual([]);
      const targets = monitorScrapeTargets(daemonSet(objects, monitorName), samplePlacement);
      const published = pluginDaemonSets(objects).map((ds) => pluginMetricsReach(ds, samplePlacement));
      expect(targets.map((t) => `${t.host}:${t.port}`).sort()).toEqual(
        published.map((p) => `${samplePlacement.nodeIp}:${'nodePort' in p ? p.nodePort : p.problem}`).sort(),
      );
    },
  );

  it('deploy/all scrapes the five single plugins, deploy/device-plugins the all-in-one', () => {
    const ports = (dir: string) =>
      monitorScrapeTargets(daemonSet(build(dir), monitorName), samplePlacement).map((t) => t.port);
    expect(ports('all')).toEqual([9401, 9402, 9403, 9404, 9405]);
    expect(ports('device-plugins')).toEqual([9400]);
  });
});

describe('the check catches a monitor that could not reach a plugin', () => {
  it('fails the manifests as they were: no hostPort, and the monitor scraping NODE_IP:9401 only', () => {
    const old = build('all');
    for (const ds of pluginDaemonSets(old))
      for (const port of podSpecOf(ds).containers[0]?.ports ?? []) delete port.hostPort;
    const monitor = container(old, monitorName);
    monitor.args = [
      ...(monitor.args ?? []).filter((arg) => !arg.startsWith('--plugin-metrics')),
      '--plugin-metrics=http://$(NODE_IP):9401/metrics',
    ];
    monitor.env = (monitor.env ?? []).filter((entry) => entry.name === 'NODE_IP');
    const noHostPort = (name: string, port: number) =>
      `${name}: metrics port ${port} has no hostPort and the pod no hostNetwork: only the pod's IP reaches it, which the monitor cannot know`;
    // In kubectl kustomize's output order (objects sorted by kind, then name).
    expect(monitorReachProblems(old)).toEqual([
      noHostPort('fpga-device-plugin', 9405),
      noHostPort('gpu-device-plugin', 9401),
      noHostPort('infiniband-device-plugin', 9403),
      noHostPort('usb-device-plugin', 9404),
      `${monitorName}: scrapes NODE_IP:9401, where no plugin DaemonSet of this build listens`,
      `sriov-device-plugin: serves its metrics at NODE_IP:9402, which ${monitorName} does not scrape`,
    ]);
  });

  const replaceInArgs = (objects: KubeObject[], name: string, from: string, to: string) => {
    const c = container(objects, name);
    c.args = (c.args ?? []).map((arg) => arg.replace(from, to));
  };
  const setMonitorPorts = (objects: KubeObject[], edit: (ports: string) => string) => {
    const env = container(objects, monitorName).env?.find((e) => e.name === 'PLUGIN_METRICS_PORTS');
    if (env) env.value = edit(env.value ?? '');
  };

  const mutations: [string, string, (objects: KubeObject[]) => void, string][] = [
    [
      'the GPU plugin without its hostPort',
      'all',
      (o) => delete container(o, 'gpu-device-plugin').ports?.[0]?.hostPort,
      'gpu-device-plugin: metrics port 9401 has no hostPort',
    ],
    [
      'the GPU plugin listening on 127.0.0.1 (the hostPort forwards to the pod IP)',
      'all',
      (o) => replaceInArgs(o, 'gpu-device-plugin', '0.0.0.0:9401', '127.0.0.1:9401'),
      'gpu-device-plugin: --metrics-address=127.0.0.1:9401: a hostPort forwards to the pod',
    ],
    [
      'the GPU plugin listening on another port than its hostPort forwards to',
      'all',
      (o) => replaceInArgs(o, 'gpu-device-plugin', ':9401', ':9499'),
      'gpu-device-plugin: metrics port 9499 is no TCP container port',
    ],
    [
      'SR-IOV (hostNetwork) listening on loopback only',
      'all',
      (o) => replaceInArgs(o, 'sriov-device-plugin', '0.0.0.0:9402', '127.0.0.1:9402'),
      "sriov-device-plugin: hostNetwork, but --metrics-address=127.0.0.1:9402 is not bound to the node's IP",
    ],
    [
      'a hostPort bound to a fixed hostIP',
      'all',
      (o) => Object.assign(container(o, 'usb-device-plugin').ports?.[0] ?? {}, { hostIP: '198.51.100.1' }),
      'usb-device-plugin: hostPort 9404 is bound to hostIP 198.51.100.1 only',
    ],
    [
      'a plugin port left out of PLUGIN_METRICS_PORTS',
      'all',
      (o) => setMonitorPorts(o, () => '9401,9402,9403,9404'),
      `fpga-device-plugin: serves its metrics at NODE_IP:9405, which ${monitorName} does not scrape`,
    ],
    [
      'a port no plugin of the build serves',
      'all',
      (o) => setMonitorPorts(o, (ports) => `${ports},9400`),
      `${monitorName}: scrapes NODE_IP:9400, where no plugin DaemonSet of this build listens`,
    ],
    [
      'deploy/device-plugins without its patch (the single plugins’ ports)',
      'device-plugins',
      (o) => setMonitorPorts(o, () => '9401,9402,9403,9404,9405'),
      `kdp-device-plugins: serves its metrics at NODE_IP:9400, which ${monitorName} does not scrape`,
    ],
    [
      'NODE_IP from the pod IP instead of status.hostIP',
      'all',
      (o) => {
        const env = container(o, monitorName).env?.find((e) => e.name === 'NODE_IP');
        if (env?.valueFrom?.fieldRef) env.valueFrom.fieldRef.fieldPath = 'status.podIP';
      },
      `${monitorName}: scrapes ${samplePlacement.podIp}:9401, not its node's IP`,
    ],
    [
      'the monitor with no plugin flags',
      'all',
      (o) => {
        const c = container(o, monitorName);
        c.args = (c.args ?? []).filter((a) => !a.startsWith('--plugin-metrics'));
      },
      `${monitorName}: scrapes no plugin metrics endpoint`,
    ],
  ];

  it.each(mutations)('%s', (_title, dir, mutate, problem) => {
    const objects = build(dir);
    mutate(objects);
    const problems = monitorReachProblems(objects);
    expect(problems.some((p) => p.startsWith(problem))).toBe(true);
  });
});

describe('$(VAR) expansion as the kubelet does it', () => {
  it('replaces defined variables, keeps undefined references and unescapes $$', () => {
    expect(expandKubeVars('$(A):$(B)/$$(A)/$(C)', { A: '1', B: '$(A)' })).toBe('1:$(A)/$(A)/$(C)');
  });

  it('resolves env values from earlier entries and the downward API, and refuses an unmodelled field', () => {
    const pod = {
      containers: [
        {
          name: 'c',
          args: ['--to=$(URL)', '--on=$(NODE)'],
          env: [
            { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
            { name: 'URL', value: 'http://$(IP):1' },
          ],
        },
      ],
    };
    const c = pod.containers[0] as PodContainer;
    expect(resolvedArgs(pod, c, samplePlacement)).toEqual([
      `--to=http://${samplePlacement.nodeIp}:1`,
      '--on=$(NODE)',
    ]);
    c.env?.push({ name: 'X', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } });
    expect(() => resolvedArgs(pod, c, samplePlacement)).toThrow('fieldRef metadata.uid is not modelled');
  });
});
