import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '@kdp/base';
import { alreadyExists, invalid, notFound, type StatusCause } from './api-errors';
import { createAdmission, type AdmissionRequest } from './admission-policies';
import { createChangeLog } from './change-log';
import { type ListOptions, listMatcher } from './list-matcher';
import { mergePatch } from './merge-patch';
import { watchObjects, type WatchEvent } from './object-watch';
import { type KubeObject, resourceTypes, type ResourceType, type ValidationContext } from './resource-types';
import { checkDeletePreconditions, checkUpdatePreconditions, createMetadata } from './write-preconditions';

export type { ListOptions } from './list-matcher';
export type { WatchEvent } from './object-watch';
export { resourceTypes } from './resource-types';
export type { KubeObject, ResourceType } from './resource-types';

/** The API server's storage, with the API's semantics; usable directly from tests (no auth). */
export interface ObjectStore {
  /** The current global resourceVersion. */
  resourceVersion(): number;
  get(resource: string, name: string, namespace?: string): KubeObject;
  list(resource: string, options?: ListOptions): { items: KubeObject[]; resourceVersion: string };
  /** Creates an object; with `dryRun`, validates it and answers as if created (no resourceVersion), storing nothing. */
  create(resource: string, object: KubeObject, namespace?: string, options?: WriteOptions): KubeObject;
  /** Replaces an object; a non-empty stale `metadata.resourceVersion` is a 409 Conflict. */
  update(
    resource: string,
    object: KubeObject,
    options?: { namespace?: string; subresource?: 'status' } & WriteOptions,
  ): KubeObject;
  /** JSON merge patch (RFC 7386). */
  patch(
    resource: string,
    name: string,
    patch: unknown,
    options?: { namespace?: string; subresource?: 'status' } & WriteOptions,
  ): KubeObject;
  delete(
    resource: string,
    name: string,
    options?: {
      namespace?: string;
      preconditions?: { uid?: string; resourceVersion?: string };
    } & WriteOptions,
  ): KubeObject;
  deleteCollection(resource: string, options?: ListOptions & WriteOptions): KubeObject[];
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

/** Options of every write. */
export interface WriteOptions {
  /** `dryRun=All`: validate and answer as if written, change nothing (no resourceVersion is used up). */
  readonly dryRun?: boolean;
}

const historyLimit = 10_000;

const keyOf = (type: ResourceType, name: string, namespace?: string): string =>
  type.namespaced ? `${namespace ?? ''}/${name}` : name;

/** A copy of `object` with the `apiVersion` and `kind` of `type`. */
const withType = (type: ResourceType, object: KubeObject): KubeObject => ({
  ...structuredClone(object),
  apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`,
  kind: type.kind,
});

const typeOf = (resource: string): ResourceType => {
  const type = resourceTypes[resource];
  if (type === undefined) throw notFound(resource, '', resource);
  return type;
};

const failOn = (type: ResourceType, name: string, causes: StatusCause[]): void => {
  if (causes.length > 0) throw invalid(type.kind, type.group, name, causes);
};

/** The object an update stores: only the status on the status subresource, else all but the status. */
function updatedObject(
  type: ResourceType,
  object: KubeObject,
  old: KubeObject,
  subresource: 'status' | undefined,
  context: ValidationContext,
  admit: (request: AdmissionRequest) => void,
): KubeObject {
  const name = object.metadata?.name ?? '';
  if (subresource === 'status') {
    // The status subresource changes only the status.
    const next = { ...structuredClone(old), status: structuredClone(object['status']) };
    failOn(type, name, type.validateStatus?.(next, old) ?? []);
    return next;
  }
  const next: KubeObject = structuredClone(object);
  if (type.statusSubresource) next['status'] = structuredClone(old['status']);
  failOn(type, name, type.validate(next, old, context));
  admit({ type, operation: 'UPDATE', object: withType(type, next), oldObject: withType(type, old) });
  return next;
}

/** Options of {@link createObjectStore}. */
export interface ObjectStoreOptions {
  /** Stamps `creationTimestamp`. */
  readonly clock?: Clock;
  /** Compiles a CEL expression: the compiler's message when it fails (then the write is a 422). */
  readonly validateCel?: (expression: string) => string | undefined;
}

/** Creates an empty store; `clock` stamps `creationTimestamp`. */
export function createObjectStore(options: ObjectStoreOptions = {}): ObjectStore {
  const clock = options.clock ?? systemClock;
  const context: ValidationContext =
    options.validateCel === undefined ? {} : { validateCel: options.validateCel };
  const objects = new Map<string, Map<string, KubeObject>>();
  const timestamp = (): string =>
    new Date(Math.floor(clock.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const log = createChangeLog({ limit: historyLimit });
  // Validating admission policies (stored here too) run after an object's validation, as kube-apiserver's do.
  const admit = createAdmission((plural) => [...bucket(plural).values()]);

  const bucket = (resource: string): Map<string, KubeObject> => {
    let map = objects.get(resource);
    if (map === undefined) objects.set(resource, (map = new Map()));
    return map;
  };
  const current = (type: ResourceType, name: string, namespace?: string): KubeObject => {
    const found = bucket(type.plural).get(keyOf(type, name, namespace));
    if (found === undefined) throw notFound(type.plural, type.group, name);
    return found;
  };

  const store: ObjectStore = {
    resourceVersion: () => log.current(),
    get: (resource, name, namespace) => {
      const type = typeOf(resource);
      return withType(type, current(type, name, namespace));
    },
    list: (resource, options = {}) => {
      const type = typeOf(resource);
      const matches = listMatcher(type, options);
      const items = [...bucket(resource).values()]
        .filter(matches)
        .sort((a, b) =>
          keyOf(type, a.metadata.name ?? '', a.metadata.namespace).localeCompare(
            keyOf(type, b.metadata.name ?? '', b.metadata.namespace),
          ),
        )
        .map((o) => withType(type, o));
      return { items, resourceVersion: String(log.current()) };
    },
    create: (resource, object, namespace, options = {}) => {
      const type = typeOf(resource);
      const meta = createMetadata(type, object, namespace);
      const candidate: KubeObject = { ...structuredClone(object), metadata: meta };
      if (type.statusSubresource) delete candidate['status'];
      failOn(type, meta.name ?? '', type.validate(candidate, undefined, context));
      admit({ type, operation: 'CREATE', object: withType(type, candidate), oldObject: undefined });
      if (type.createStatus !== undefined) candidate['status'] = type.createStatus(candidate);
      const key = keyOf(type, meta.name ?? '', meta.namespace);
      if (bucket(resource).has(key)) throw alreadyExists(resource, type.group, meta.name ?? '');
      if (options.dryRun === true) {
        // As the real API server: uid and creationTimestamp filled in, no resourceVersion (nothing was stored).
        return withType(type, {
          ...candidate,
          metadata: { ...meta, uid: randomUUID(), creationTimestamp: timestamp() },
        });
      }
      const rv = log.next();
      const stored: KubeObject = withType(type, {
        ...candidate,
        metadata: {
          ...meta,
          uid: randomUUID(),
          resourceVersion: String(rv),
          creationTimestamp: timestamp(),
        },
      });
      bucket(resource).set(key, stored);
      log.record({ rv, resource, type: 'ADDED', object: stored });
      return withType(type, stored);
    },
    update: (resource, object, options = {}) => {
      const type = typeOf(resource);
      const name = object.metadata?.name ?? '';
      const namespace = type.namespaced
        ? (options.namespace ?? object.metadata?.namespace ?? 'default')
        : undefined;
      const old = current(type, name, namespace);
      checkUpdatePreconditions(type, object, old);
      const next = updatedObject(type, object, old, options.subresource, context, admit);
      // A dry run answers what would be stored, at the version it replaces.
      const rv = options.dryRun === true ? undefined : log.next();
      const stored = withType(type, {
        ...next,
        metadata: {
          ...next.metadata,
          name,
          ...(namespace === undefined ? {} : { namespace }),
          uid: old.metadata.uid,
          creationTimestamp: old.metadata.creationTimestamp,
          resourceVersion: rv === undefined ? old.metadata.resourceVersion : String(rv),
        },
      });
      if (stored.metadata.namespace === undefined) delete stored.metadata.namespace;
      if (rv === undefined) return stored;
      bucket(resource).set(keyOf(type, name, namespace), stored);
      log.record({ rv, resource, type: 'MODIFIED', object: stored, old });
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
      checkDeletePreconditions(type, name, options.preconditions, old);
      if (options.dryRun === true) return withType(type, old);
      bucket(resource).delete(keyOf(type, name, options.namespace));
      const rv = log.next();
      const gone = withType(type, { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } });
      log.record({ rv, resource, type: 'DELETED', object: gone, old });
      return withType(type, gone);
    },
    deleteCollection: (resource, options = {}) => {
      const { items } = store.list(resource, options);
      return items.map((o) =>
        store.delete(resource, o.metadata.name ?? '', {
          ...(o.metadata.namespace === undefined ? {} : { namespace: o.metadata.namespace }),
          ...(options.dryRun === true ? { dryRun: true } : {}),
        }),
      );
    },
    watch: (resource, options, onEvent) =>
      watchObjects({
        type: typeOf(resource),
        log,
        list: () => store.list(resource, options).items,
        withType: (object) => withType(typeOf(resource), object),
        options,
        onEvent,
      }),
  };
  return store;
}
