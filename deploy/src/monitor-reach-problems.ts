import {
  flagValues,
  podSpecOf,
  resolvedArgs,
  type PodContainer,
  type PodPlacement,
  type PodTemplateSpec,
} from './resolved-args';
import type { KubeObject } from './kube-object';

/** The device monitor's DaemonSet and container name. */
export const monitorName = 'device-monitor';

/** The node the checks place every pod on (documentation addresses, RFC 5737). */
export const samplePlacement: PodPlacement = {
  nodeIp: '192.0.2.10',
  podIp: '10.244.1.23',
  nodeName: 'node-1',
};

/** One plugin metrics endpoint the monitor scrapes. */
export interface ScrapeTarget {
  readonly host: string;
  readonly port: number;
}

/** Where one plugin DaemonSet's metrics can be reached from another pod of its node, or why they cannot. */
export type PluginMetricsReach =
  | { readonly daemonSet: string; readonly nodePort: number }
  | { readonly daemonSet: string; readonly problem: string };

const unbracket = (host: string): string => /^\[(.*)\]$/.exec(host)?.[1] ?? host;

function monitorContainer(monitor: KubeObject): { pod: PodTemplateSpec; container: PodContainer } {
  const pod = podSpecOf(monitor);
  const container = pod.containers.find((candidate) => candidate.name === monitorName);
  if (container === undefined) throw new Error(`${monitor.metadata.name}: no container ${monitorName}`);
  return { pod, container };
}

/**
 * The plugin endpoints the device monitor scrapes on a node, read from its flags after the kubelet's `$(VAR)`
 * expansion: each `--plugin-metrics` URL, and `--plugin-metrics-host` with each `--plugin-metrics-ports` port.
 */
export function monitorScrapeTargets(monitor: KubeObject, placement: PodPlacement): ScrapeTarget[] {
  const { pod, container } = monitorContainer(monitor);
  const args = resolvedArgs(pod, container, placement);
  const list = (flag: string): string[] =>
    flagValues(args, flag)
      .flatMap((value) => value.split(','))
      .map((value) => value.trim())
      .filter((value) => value !== '');
  const targets: ScrapeTarget[] = list('--plugin-metrics').map((text) => {
    const url = new URL(text);
    return {
      host: unbracket(url.hostname),
      port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    };
  });
  const host = flagValues(args, '--plugin-metrics-host').at(-1);
  if (host !== undefined)
    for (const port of list('--plugin-metrics-ports'))
      targets.push({ host: unbracket(host), port: Number(port) });
  return targets;
}

/**
 * Where a plugin DaemonSet serves `--metrics-address` for other pods of its node: on a hostNetwork pod the
 * process's own port (bound to every address or the node's), otherwise the `hostPort` of the container port it
 * listens on (bound to every address or the pod's, which the CNI's portmap forwards to).
 */
export function pluginMetricsReach(daemonSet: KubeObject, placement: PodPlacement): PluginMetricsReach {
  const name = daemonSet.metadata.name;
  const pod = podSpecOf(daemonSet);
  for (const container of pod.containers) {
    const address = flagValues(resolvedArgs(pod, container, placement), '--metrics-address').at(-1);
    if (address === undefined) continue;
    const match = /^(\[[^\]]*\]|[^:]*):(\d+)$/.exec(address);
    if (match === null) return { daemonSet: name, problem: `--metrics-address=${address} is not HOST:PORT` };
    const host = unbracket(match[1] as string);
    const port = Number(match[2]);
    const everyAddress = host === '' || host === '0.0.0.0' || host === '::';
    if (pod.hostNetwork === true) {
      if (!everyAddress && host !== placement.nodeIp)
        return {
          daemonSet: name,
          problem: `hostNetwork, but --metrics-address=${address} is not bound to the node's IP`,
        };
      return { daemonSet: name, nodePort: port };
    }
    if (!everyAddress && host !== placement.podIp)
      return {
        daemonSet: name,
        problem: `--metrics-address=${address}: a hostPort forwards to the pod's IP, where nothing listens`,
      };
    const entry = container.ports?.find(
      (candidate) => candidate.containerPort === port && (candidate.protocol ?? 'TCP') === 'TCP',
    );
    if (entry === undefined)
      return { daemonSet: name, problem: `metrics port ${port} is no TCP container port` };
    if (entry.hostPort === undefined)
      return {
        daemonSet: name,
        problem: `metrics port ${port} has no hostPort and the pod no hostNetwork: only the pod's IP reaches it, which the monitor cannot know`,
      };
    if (entry.hostIP !== undefined && entry.hostIP !== placement.nodeIp)
      return {
        daemonSet: name,
        problem: `hostPort ${entry.hostPort} is bound to hostIP ${entry.hostIP} only`,
      };
    return { daemonSet: name, nodePort: entry.hostPort };
  }
  return { daemonSet: name, problem: 'no --metrics-address' };
}

/** The kdp plugin DaemonSets of a build (labelled app.kubernetes.io/component=device-plugin). */
export function pluginDaemonSets(objects: readonly KubeObject[]): KubeObject[] {
  return objects.filter(
    (object) =>
      object.kind === 'DaemonSet' &&
      object.metadata.labels?.['app.kubernetes.io/component'] === 'device-plugin',
  );
}

/**
 * Whether the device monitor of a build reaches what it reads, on a node where every pod of the build runs:
 * each endpoint it scrapes is its node's IP and a port a plugin DaemonSet of the same build serves there, and
 * each plugin DaemonSet's metrics are published on the node and scraped. Empty when all holds (or no monitor).
 */
export function monitorReachProblems(
  objects: readonly KubeObject[],
  placement: PodPlacement = samplePlacement,
): string[] {
  const monitor = objects.find(
    (object) => object.kind === 'DaemonSet' && object.metadata.name === monitorName,
  );
  if (monitor === undefined) return [];
  const reach = pluginDaemonSets(objects).map((daemonSet) => pluginMetricsReach(daemonSet, placement));
  const served = new Map<number, string>();
  const problems: string[] = [];
  for (const entry of reach) {
    if (!('nodePort' in entry)) {
      problems.push(`${entry.daemonSet}: ${entry.problem}`);
      continue;
    }
    const other = served.get(entry.nodePort);
    if (other !== undefined)
      problems.push(`${other} and ${entry.daemonSet} both publish node port ${entry.nodePort}`);
    served.set(entry.nodePort, entry.daemonSet);
  }
  const targets = monitorScrapeTargets(monitor, placement);
  if (targets.length === 0) problems.push(`${monitorName}: scrapes no plugin metrics endpoint`);
  for (const { host, port } of targets) {
    if (host !== placement.nodeIp)
      problems.push(
        `${monitorName}: scrapes ${host}:${port}, not its node's IP ${placement.nodeIp} (NODE_IP must come from status.hostIP)`,
      );
    else if (!served.has(port))
      problems.push(
        `${monitorName}: scrapes NODE_IP:${port}, where no plugin DaemonSet of this build listens`,
      );
  }
  for (const [port, daemonSet] of served) {
    if (!targets.some((target) => target.host === placement.nodeIp && target.port === port))
      problems.push(
        `${daemonSet}: serves its metrics at NODE_IP:${port}, which ${monitorName} does not scrape`,
      );
  }
  return problems;
}
