import type { KubeObject } from './resource-types';

/*
 * `meta.k8s.io/v1` Table responses, as kubectl asks for them (`Accept: application/json;as=Table;…`), with
 * the columns kube-apiserver's printers use for each kind.
 */

/** One column of a Table. */
interface Column {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date';
  readonly priority?: number;
  readonly cell: (o: KubeObject, now: number) => string | number;
}

const at = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (v, key) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined),
    o,
  );
const list = (v: unknown): Array<Record<string, unknown>> =>
  Array.isArray(v) ? (v as Array<Record<string, unknown>>) : [];
const text = (v: unknown, fallback = '<none>'): string => (typeof v === 'string' && v !== '' ? v : fallback);

/** kube's `HumanDuration`: `42s`, `3m2s`, `15m`, `2h5m`, `20h`, `3d4h`, `12d`, `2y`. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const d = Math.floor(h / 24);
  if (s < 120) return `${s}s`;
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (h < 192) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

const since = (timestamp: unknown, now: number): string =>
  typeof timestamp === 'string' && timestamp !== ''
    ? humanDuration(now - Date.parse(timestamp))
    : '<unknown>';

const name: Column = { name: 'Name', type: 'string', cell: (o) => o.metadata.name ?? '' };
const age: Column = {
  name: 'Age',
  type: 'string',
  cell: (o, now) => since(o.metadata.creationTimestamp, now),
};

function podStatus(o: KubeObject): string {
  if (o.metadata['deletionTimestamp'] !== undefined) return 'Terminating';
  for (const s of list(at(o, 'status', 'containerStatuses'))) {
    const waiting = text(at(s, 'state', 'waiting', 'reason'), '');
    if (waiting !== '' && waiting !== 'ContainerCreating') return waiting;
  }
  return text(at(o, 'status', 'reason'), '') || text(at(o, 'status', 'phase'), 'Pending');
}

function claimState(o: KubeObject): string {
  const states: string[] = [];
  if (o.metadata['deletionTimestamp'] !== undefined) states.push('deleted');
  if (at(o, 'status', 'allocation') === undefined) states.push('pending');
  else states.push('allocated');
  if (list(at(o, 'status', 'reservedFor')).length > 0) states.push('reserved');
  return states.join(',');
}

function nodeStatus(o: KubeObject): string {
  const ready = list(at(o, 'status', 'conditions')).find((c) => c['type'] === 'Ready');
  const state = ready === undefined ? 'Unknown' : ready['status'] === 'True' ? 'Ready' : 'NotReady';
  return at(o, 'spec', 'unschedulable') === true ? `${state},SchedulingDisabled` : state;
}

const eventTime = (o: KubeObject): unknown =>
  o['lastTimestamp'] ?? o['eventTime'] ?? o['firstTimestamp'] ?? o.metadata.creationTimestamp;

/** The columns of each kind, by plural resource name. */
const columns: Readonly<Record<string, readonly Column[]>> = {
  pods: [
    name,
    {
      name: 'Ready',
      type: 'string',
      cell: (o) => {
        const statuses = list(at(o, 'status', 'containerStatuses'));
        return `${statuses.filter((s) => s['ready'] === true).length}/${list(at(o, 'spec', 'containers')).length}`;
      },
    },
    { name: 'Status', type: 'string', cell: podStatus },
    {
      name: 'Restarts',
      type: 'string',
      cell: (o) =>
        String(
          list(at(o, 'status', 'containerStatuses')).reduce((n, s) => n + Number(s['restartCount'] ?? 0), 0),
        ),
    },
    age,
    { name: 'IP', type: 'string', priority: 1, cell: (o) => text(at(o, 'status', 'podIP')) },
    { name: 'Node', type: 'string', priority: 1, cell: (o) => text(at(o, 'spec', 'nodeName')) },
  ],
  resourceclaims: [name, { name: 'State', type: 'string', cell: claimState }, age],
  resourceclaimtemplates: [name, age],
  deviceclasses: [name, age],
  resourceslices: [
    name,
    { name: 'Node', type: 'string', cell: (o) => text(at(o, 'spec', 'nodeName')) },
    { name: 'Driver', type: 'string', cell: (o) => text(at(o, 'spec', 'driver')) },
    { name: 'Pool', type: 'string', cell: (o) => text(at(o, 'spec', 'pool', 'name')) },
    age,
  ],
  nodes: [
    name,
    { name: 'Status', type: 'string', cell: nodeStatus },
    { name: 'Roles', type: 'string', cell: () => '<none>' },
    age,
    { name: 'Version', type: 'string', cell: (o) => text(at(o, 'status', 'nodeInfo', 'kubeletVersion'), '') },
  ],
  events: [
    { name: 'Last Seen', type: 'string', cell: (o, now) => since(eventTime(o), now) },
    { name: 'Type', type: 'string', cell: (o) => text(o['type'], '') },
    { name: 'Reason', type: 'string', cell: (o) => text(o['reason'], '') },
    {
      name: 'Object',
      type: 'string',
      cell: (o) =>
        `${String(at(o, 'involvedObject', 'kind') ?? '').toLowerCase()}/${String(at(o, 'involvedObject', 'name') ?? '')}`,
    },
    { name: 'Message', type: 'string', cell: (o) => text(o['message'], '') },
  ],
};

/** Whether an `Accept` header asks for a Table. */
export const wantsTable = (accept: string | undefined): boolean =>
  (accept ?? '').split(',')[0]?.includes('as=Table') === true;

/**
 * The Table of `objects` of `resource`; rows carry each object's metadata (`PartialObjectMetadata`), or the
 * whole object with `includeObject=Object`.
 */
export function asTable(
  resource: string,
  objects: readonly KubeObject[],
  options: { now: number; resourceVersion?: string; includeObject?: string | null },
): unknown {
  const cols = columns[resource] ?? [name, age];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: options.resourceVersion === undefined ? {} : { resourceVersion: options.resourceVersion },
    columnDefinitions: cols.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.name === 'Name' ? 'name' : '',
      description: '',
      priority: c.priority ?? 0,
    })),
    rows: objects.map((o) => ({
      cells: cols.map((c) => c.cell(o, options.now)),
      object:
        options.includeObject === 'Object'
          ? o
          : options.includeObject === 'None'
            ? null
            : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
    })),
  };
}
