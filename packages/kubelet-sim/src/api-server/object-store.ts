import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '@kdp/base';
import {
  alreadyExists,
  conflict,
  internalError,
  invalid,
  notFound,
  badRequest,
  type ApiError,
  type StatusCause,
} from './api-errors';
import { parseFieldSelector, parseLabelSelector } from './selectors';
import {
  validateDeviceClass,
  validateNode,
  validateResourceClaim,
  validateResourceClaimStatus,
  validateResourceSlice,
} from './validation';

/** A stored API object: any JSON object with `metadata`. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string | undefined;
    generateName?: string | undefined;
    namespace?: string | undefined;
    uid?: string | undefined;
    resourceVersion?: string | undefined;
    creationTimestamp?: string | undefined;
    labels?: Record<string, string> | undefined;
    ownerReferences?: unknown[] | undefined;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** A resource the API server serves. */
export interface ResourceType {
  readonly plural: string;
  readonly singular: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** Fields usable in `fieldSelector` besides `metadata.name` (and `metadata.namespace` when namespaced). */
  readonly fields: Readonly<Record<string, (o: KubeObject) => string | undefined>>;
  /** Whether a `status` subresource exists (then PUT on the object keeps the old status). */
  readonly statusSubresource: boolean;
  validate(object: KubeObject, old?: KubeObject): StatusCause[];
  validateStatus?(object: KubeObject, old: KubeObject): StatusCause[];
}

const spec = (o: KubeObject): Record<string, unknown> =>
  typeof o['spec'] === 'object' && o['spec'] !== null ? (o['spec'] as Record<string, unknown>) : {};
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The resources kubelet-sim's API server serves, by plural name. */
export const resourceTypes: Readonly<Record<string, ResourceType>> = {
  resourceslices: {
    plural: 'resourceslices',
    singular: 'resourceslice',
    group: 'resource.k8s.io',
    version: 'v1',
    kind: 'ResourceSlice',
    namespaced: false,
    fields: {
      'spec.nodeName': (o) => str(spec(o)['nodeName']) ?? '',
      'spec.driver': (o) => str(spec(o)['driver']) ?? '',
    },
    statusSubresource: false,
    validate: (o, old) => validateResourceSlice(o, old),
  },
  resourceclaims: {
    plural: 'resourceclaims',
    singular: 'resourceclaim',
    group: 'resource.k8s.io',
    version: 'v1',
    kind: 'ResourceClaim',
    namespaced: true,
    fields: {},
    statusSubresource: true,
    validate: (o, old) => validateResourceClaim(o, old),
    validateStatus: (o) => validateResourceClaimStatus(o),
  },
  deviceclasses: {
    plural: 'deviceclasses',
    singular: 'deviceclass',
    group: 'resource.k8s.io',
    version: 'v1',
    kind: 'DeviceClass',
    namespaced: false,
    fields: {},
    statusSubresource: false,
    validate: (o) => validateDeviceClass(o),
  },
  nodes: {
    plural: 'nodes',
    singular: 'node',
    group: '',
    version: 'v1',
    kind: 'Node',
    namespaced: false,
    fields: { 'spec.unschedulable': (o) => String(spec(o)['unschedulable'] === true) },
    statusSubresource: false,
    validate: (o) => validateNode(o),
  },
};

/** A change to an object, as a watch stream carries it. */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR' | 'BOOKMARK';
  readonly object: KubeObject | ApiError['status'];
}

interface Change {
  readonly rv: number;
  readonly resource: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
  readonly old?: KubeObject;
}

/** Which objects a list, watch or deletecollection selects. */
export interface ListOptions {
  readonly namespace?: string;
  readonly fieldSelector?: string | null;
  readonly labelSelector?: string | null;
}

/** The API server's storage, with the API's semantics; usable directly from tests (no auth). */
export interface ObjectStore {
  /** The current global resourceVersion. */
  resourceVersion(): number;
  get(resource: string, name: string, namespace?: string): KubeObject;
  list(resource: string, options?: ListOptions): { items: KubeObject[]; resourceVersion: string };
  create(resource: string, object: KubeObject, namespace?: string): KubeObject;
  /** Replaces an object; a non-empty stale `metadata.resourceVersion` is a 409 Conflict. */
  update(
    resource: string,
    object: KubeObject,
    options?: { namespace?: string; subresource?: 'status' },
  ): KubeObject;
  /** JSON merge patch (RFC 7386). */
  patch(
    resource: string,
    name: string,
    patch: unknown,
    options?: { namespace?: string; subresource?: 'status' },
  ): KubeObject;
  delete(
    resource: string,
    name: string,
    options?: { namespace?: string; preconditions?: { uid?: string; resourceVersion?: string } },
  ): KubeObject;
  deleteCollection(resource: string, options?: ListOptions): KubeObject[];
  /**
   * Streams changes after `resourceVersion` (absent or "0": every current object as ADDED first); a version
   * older than the kept history is a 410 Expired. Returns the function that stops the watch.
   */
  watch(
    resource: string,
    options: ListOptions & { resourceVersion?: string },
    onEvent: (e: WatchEvent) => void,
  ): () => void;
}

const generateSuffixChars = 'bcdfghjklmnpqrstvwxz2456789';
const historyLimit = 10_000;

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/** Creates an empty store; `clock` stamps `creationTimestamp`. */
export function createObjectStore(options: { clock?: Clock } = {}): ObjectStore {
  const clock = options.clock ?? systemClock;
  let rv = 0;
  const objects = new Map<string, Map<string, KubeObject>>();
  const history: Change[] = [];
  const watchers = new Set<(change: Change) => void>();

  const typeOf = (resource: string): ResourceType => {
    const type = resourceTypes[resource];
    if (type === undefined) throw notFound(resource, '', resource);
    return type;
  };
  const bucket = (resource: string): Map<string, KubeObject> => {
    let map = objects.get(resource);
    if (map === undefined) objects.set(resource, (map = new Map()));
    return map;
  };
  const keyOf = (type: ResourceType, name: string, namespace?: string): string =>
    type.namespaced ? `${namespace ?? ''}/${name}` : name;
  const withType = (type: ResourceType, object: KubeObject): KubeObject => ({
    ...structuredClone(object),
    apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`,
    kind: type.kind,
  });
  const record = (change: Omit<Change, 'rv'> & { rv: number }): void => {
    history.push(change);
    if (history.length > historyLimit) history.splice(0, history.length - historyLimit);
    for (const watcher of watchers) watcher(change);
  };
  const fail = (type: ResourceType, name: string, causes: StatusCause[]): void => {
    if (causes.length > 0) throw invalid(type.kind, type.group, name, causes);
  };
  const current = (type: ResourceType, name: string, namespace?: string): KubeObject => {
    const found = bucket(type.plural).get(keyOf(type, name, namespace));
    if (found === undefined) throw notFound(type.plural, type.group, name);
    return found;
  };
  const matcher = (type: ResourceType, options: ListOptions): ((o: KubeObject) => boolean) => {
    const fieldNames = [
      'metadata.name',
      ...(type.namespaced ? ['metadata.namespace'] : []),
      ...Object.keys(type.fields),
    ];
    const fields = parseFieldSelector(options.fieldSelector ?? null, fieldNames);
    const labels = parseLabelSelector(options.labelSelector ?? null);
    return (o) =>
      (options.namespace === undefined || o.metadata.namespace === options.namespace) &&
      fields((key) =>
        key === 'metadata.name'
          ? o.metadata.name
          : key === 'metadata.namespace'
            ? o.metadata.namespace
            : type.fields[key]?.(o),
      ) &&
      labels((key) => o.metadata.labels?.[key]);
  };

  const store: ObjectStore = {
    resourceVersion: () => rv,
    get: (resource, name, namespace) => {
      const type = typeOf(resource);
      return withType(type, current(type, name, namespace));
    },
    list: (resource, options = {}) => {
      const type = typeOf(resource);
      const matches = matcher(type, options);
      const items = [...bucket(resource).values()]
        .filter(matches)
        .sort((a, b) =>
          keyOf(type, a.metadata.name ?? '', a.metadata.namespace).localeCompare(
            keyOf(type, b.metadata.name ?? '', b.metadata.namespace),
          ),
        )
        .map((o) => withType(type, o));
      return { items, resourceVersion: String(rv) };
    },
    create: (resource, object, namespace) => {
      const type = typeOf(resource);
      const meta = { ...(object.metadata ?? {}) };
      if (type.namespaced) {
        const ns = namespace ?? meta.namespace ?? 'default';
        if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== ns) {
          throw badRequest(
            'the namespace of the provided object does not match the namespace sent on the request',
          );
        }
        meta.namespace = ns;
      } else delete meta.namespace;
      if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
        throw internalError('resourceVersion should not be set on objects to be created');
      }
      if ((meta.name ?? '') === '' && (meta.generateName ?? '') !== '') {
        let suffix = '';
        for (let i = 0; i < 5; i += 1)
          suffix += generateSuffixChars[Math.floor(Math.random() * generateSuffixChars.length)];
        meta.name = `${meta.generateName}${suffix}`;
      }
      const candidate: KubeObject = { ...structuredClone(object), metadata: meta };
      if (type.statusSubresource) delete candidate['status'];
      fail(type, meta.name ?? '', type.validate(candidate));
      const key = keyOf(type, meta.name ?? '', meta.namespace);
      if (bucket(resource).has(key)) throw alreadyExists(resource, type.group, meta.name ?? '');
      rv += 1;
      const stored: KubeObject = withType(type, {
        ...candidate,
        metadata: {
          ...meta,
          uid: randomUUID(),
          resourceVersion: String(rv),
          creationTimestamp: new Date(Math.floor(clock.now() / 1000) * 1000)
            .toISOString()
            .replace('.000Z', 'Z'),
        },
      });
      bucket(resource).set(key, stored);
      record({ rv, resource, type: 'ADDED', object: stored });
      return withType(type, stored);
    },
    update: (resource, object, options = {}) => {
      const type = typeOf(resource);
      const name = object.metadata?.name ?? '';
      const namespace = type.namespaced
        ? (options.namespace ?? object.metadata?.namespace ?? 'default')
        : undefined;
      const old = current(type, name, namespace);
      const wanted = object.metadata?.resourceVersion;
      if (wanted !== undefined && wanted !== '' && wanted !== old.metadata.resourceVersion) {
        throw conflict(resource, type.group, name);
      }
      if (
        object.metadata?.uid !== undefined &&
        object.metadata.uid !== '' &&
        object.metadata.uid !== old.metadata.uid
      ) {
        throw conflict(
          resource,
          type.group,
          name,
          `Precondition failed: UID in precondition: ${object.metadata.uid}, UID in object meta: ${old.metadata.uid}`,
        );
      }
      let next: KubeObject = structuredClone(object);
      if (options.subresource === 'status') {
        // The status subresource changes only the status.
        next = { ...structuredClone(old), status: structuredClone(object['status']) };
        fail(type, name, type.validateStatus?.(next, old) ?? []);
      } else {
        if (type.statusSubresource) next['status'] = structuredClone(old['status']);
        fail(type, name, type.validate(next, old));
      }
      rv += 1;
      const stored = withType(type, {
        ...next,
        metadata: {
          ...next.metadata,
          name,
          ...(namespace === undefined ? {} : { namespace }),
          uid: old.metadata.uid,
          creationTimestamp: old.metadata.creationTimestamp,
          resourceVersion: String(rv),
        },
      });
      if (stored.metadata.namespace === undefined) delete stored.metadata.namespace;
      bucket(resource).set(keyOf(type, name, namespace), stored);
      record({ rv, resource, type: 'MODIFIED', object: stored, old });
      return withType(type, stored);
    },
    patch: (resource, name, patch, options = {}) => {
      const type = typeOf(resource);
      const old = store.get(resource, name, options.namespace);
      const merged = mergePatch(old, patch) as KubeObject;
      const patchedRv = (patch as { metadata?: { resourceVersion?: string } } | null)?.metadata
        ?.resourceVersion;
      merged.metadata = { ...merged.metadata, resourceVersion: patchedRv ?? old.metadata.resourceVersion };
      return store.update(type.plural, merged, options);
    },
    delete: (resource, name, options = {}) => {
      const type = typeOf(resource);
      const old = current(type, name, options.namespace);
      const pre = options.preconditions;
      if (pre?.uid !== undefined && pre.uid !== old.metadata.uid) {
        throw conflict(
          resource,
          type.group,
          name,
          `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`,
        );
      }
      if (pre?.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion) {
        throw conflict(
          resource,
          type.group,
          name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
        );
      }
      bucket(resource).delete(keyOf(type, name, options.namespace));
      rv += 1;
      const gone = withType(type, { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } });
      record({ rv, resource, type: 'DELETED', object: gone, old });
      return withType(type, gone);
    },
    deleteCollection: (resource, options = {}) => {
      const { items } = store.list(resource, options);
      return items.map((o) =>
        store.delete(
          resource,
          o.metadata.name ?? '',
          o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace },
        ),
      );
    },
    watch: (resource, options, onEvent) => {
      const type = typeOf(resource);
      const matches = matcher(type, options);
      const deliver = (change: Change): void => {
        if (change.resource !== resource) return;
        const now = change.type !== 'DELETED' && matches(change.object);
        const before = change.old !== undefined && matches(change.old);
        if (change.type === 'ADDED' && now) onEvent({ type: 'ADDED', object: withType(type, change.object) });
        else if (change.type === 'MODIFIED' && now)
          onEvent({ type: before ? 'MODIFIED' : 'ADDED', object: withType(type, change.object) });
        else if (change.type === 'MODIFIED' && before)
          onEvent({ type: 'DELETED', object: withType(type, change.object) });
        else if (change.type === 'DELETED' && before)
          onEvent({ type: 'DELETED', object: withType(type, change.object) });
      };
      const from = options.resourceVersion;
      if (from === undefined || from === '' || from === '0') {
        for (const object of store.list(resource, options).items) onEvent({ type: 'ADDED', object });
      } else {
        const since = Number(from);
        if (!Number.isInteger(since) || since < 0)
          throw badRequest(`invalid resource version: ${JSON.stringify(from)}`);
        const oldest = history[0]?.rv ?? rv + 1;
        if (since < oldest - 1 && since < rv) {
          onEvent({
            type: 'ERROR',
            object: {
              kind: 'Status',
              apiVersion: 'v1',
              metadata: {},
              status: 'Failure',
              message: `too old resource version: ${since} (${oldest - 1})`,
              reason: 'Expired',
              code: 410,
            },
          });
          return () => undefined;
        }
        for (const change of history) if (change.rv > since) deliver(change);
      }
      watchers.add(deliver);
      return () => watchers.delete(deliver);
    },
  };
  return store;
}
