import type { KubeObject } from './kube-object';

/** A container of a pod template, as far as the tests here read it. */
export interface PodContainer {
  name: string;
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports?: { name?: string; containerPort: number; hostPort?: number; hostIP?: string; protocol?: string }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

/** A DaemonSet's pod spec, as far as the tests here read it. */
export interface PodTemplateSpec {
  hostNetwork?: boolean;
  containers: PodContainer[];
  volumes?: { name: string; hostPath?: { path: string }; configMap?: { name: string } }[];
}

/** Where a pod runs: what the kubelet substitutes for the downward API's fields. */
export interface PodPlacement {
  /** `status.hostIP`: the node's IP. */
  readonly nodeIp: string;
  /** `status.podIP` of a pod on the pod network (a hostNetwork pod's is the node's IP). */
  readonly podIp: string;
  /** `spec.nodeName`. */
  readonly nodeName: string;
}

/** The pod template spec of a DaemonSet (or any workload with spec.template). */
export function podSpecOf(workload: KubeObject): PodTemplateSpec {
  return (workload['spec'] as { template: { spec: PodTemplateSpec } }).template.spec;
}

/**
 * Expands `$(VAR)` references as the kubelet does in `args` and env values: a defined variable is replaced,
 * an undefined reference is kept as written, and `$$` stands for a literal `$`.
 */
export function expandKubeVars(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) =>
    match === '$$' ? '$' : name !== undefined && name in vars ? (vars[name] as string) : match,
  );
}

/** The environment the kubelet gives `container` (values, and the downward API fields a pod on `placement` gets). */
export function containerEnv(
  pod: PodTemplateSpec,
  container: PodContainer,
  placement: PodPlacement,
): Record<string, string> {
  const fields: Record<string, string> = {
    'status.hostIP': placement.nodeIp,
    'status.podIP': pod.hostNetwork === true ? placement.nodeIp : placement.podIp,
    'spec.nodeName': placement.nodeName,
  };
  const vars: Record<string, string> = {};
  for (const entry of container.env ?? []) {
    const fieldPath = entry.valueFrom?.fieldRef?.fieldPath;
    if (fieldPath !== undefined) {
      const value = fields[fieldPath];
      if (value === undefined)
        throw new Error(`${container.name}: env ${entry.name}: fieldRef ${fieldPath} is not modelled`);
      vars[entry.name] = value;
    } else {
      // An env value may refer to the variables defined before it.
      vars[entry.name] = expandKubeVars(entry.value ?? '', vars);
    }
  }
  return vars;
}

/** The container's args with every `$(VAR)` expanded as the kubelet would on `placement`. */
export function resolvedArgs(
  pod: PodTemplateSpec,
  container: PodContainer,
  placement: PodPlacement,
): string[] {
  const vars = containerEnv(pod, container, placement);
  return (container.args ?? []).map((arg) => expandKubeVars(arg, vars));
}

/** Every value of `flag` in `args` (`--flag=value` or `--flag value`), in order. */
export function flagValues(args: readonly string[], flag: string): string[] {
  const values: string[] = [];
  args.forEach((arg, i) => {
    if (arg.startsWith(`${flag}=`)) values.push(arg.slice(flag.length + 1));
    else if (arg === flag && i + 1 < args.length) values.push(args[i + 1] as string);
  });
  return values;
}
