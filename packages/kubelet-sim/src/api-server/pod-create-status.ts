import { compareQuantity, parseQuantity, type Quantity } from '../scheduler/cel/quantity';

/*
 * What kube-apiserver's pod strategy (PrepareForCreate) sets on a new pod: the status the client sent is dropped,
 * and the pod starts `Pending` with its QoS class (pkg/apis/core/helper/qos.ComputePodQOS).
 */

type Quantities = Readonly<Record<string, unknown>>;

interface ContainerResources {
  readonly requests?: Quantities;
  readonly limits?: Quantities;
}

/** The resources that count for QoS: CPU and memory (others, hugepages included, do not). */
const qosResources = ['cpu', 'memory'] as const;

/** A quantity's value; undefined when absent or not a quantity (as zero: it does not count). */
const valueOf = (quantity: unknown): Quantity | undefined => {
  if (typeof quantity !== 'string' && typeof quantity !== 'number') return undefined;
  try {
    return parseQuantity(String(quantity));
  } catch {
    return undefined;
  }
};

const zero = parseQuantity('0');
const isZero = (quantity: unknown): boolean => {
  const value = valueOf(quantity);
  return value === undefined || compareQuantity(value, zero) === 0;
};

/** Whether two quantities are equal as values (`1` and `1000m`). */
const sameQuantity = (a: unknown, b: unknown): boolean => {
  const [x, y] = [valueOf(a), valueOf(b)];
  return x !== undefined && y !== undefined && compareQuantity(x, y) === 0;
};

const resourcesOf = (container: unknown): ContainerResources => {
  const resources = (container as { resources?: unknown } | null)?.resources;
  return typeof resources === 'object' && resources !== null ? (resources as ContainerResources) : {};
};

/**
 * The pod's QoS class: `BestEffort` when no container requests or limits CPU or memory, `Guaranteed` when every
 * container limits both and requests (where given) equal the limits, else `Burstable`.
 */
export function podQosClass(
  pod: Readonly<Record<string, unknown>>,
): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const spec = (pod['spec'] ?? {}) as { containers?: unknown[]; initContainers?: unknown[] };
  const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].map(resourcesOf);
  let any = false;
  let guaranteed = true;
  for (const { requests = {}, limits = {} } of containers) {
    for (const name of qosResources) {
      const request = requests[name];
      const limit = limits[name];
      if (!isZero(request) || !isZero(limit)) any = true;
      if (isZero(limit)) guaranteed = false;
      else if (request !== undefined && !sameQuantity(request, limit)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** The status kube-apiserver gives a new pod: `phase: Pending` and its `qosClass`. */
export function podCreateStatus(pod: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { phase: 'Pending', qosClass: podQosClass(pod) };
}
