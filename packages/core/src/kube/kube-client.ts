import type { KubeApiAccess } from './kube-api-access';
import { KubeApiError } from './kube-api-error';
import { sendKubeJson, withQuery } from './kube-request';
import { openKubeWatch, type KubeWatch, type KubeWatchEvent } from './kube-watch';

/** Options of {@link createKubeClient}. */
export interface KubeClientOptions {
  /** The API server and credentials (`loadKubeAccess`, `inClusterAccess`). */
  readonly access: KubeApiAccess;
  /** Milliseconds one request may take (a watch: until its answer's headers); default 10 000. */
  readonly timeoutMs?: number | undefined;
  /** The largest answer (and watch event) accepted; default 8 MiB. */
  readonly maxResponseBytes?: number | undefined;
}

/** What the API server must still hold for a delete to happen (else 409). */
export interface KubePreconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** A whole list, all its pages joined. */
export interface KubeList {
  /** The list's `metadata.resourceVersion`: where a watch of it starts. */
  readonly resourceVersion: string | undefined;
  readonly items: readonly unknown[];
}

/** Options of {@link KubeClient.list}. */
export interface KubeListOptions {
  /** Objects per page (`limit`; the rest follows by `continue`); default 500, 0: one unpaged request. */
  readonly pageSize?: number | undefined;
}

/**
 * The Kubernetes API verbs over node:http(s), on JSON paths (`/api/v1/nodes/n`,
 * `/apis/resource.k8s.io/v1/resourceslices?fieldSelector=…`). Every failure answer rejects with `KubeApiError`.
 */
export interface KubeClient {
  /** GETs one object. */
  get(path: string): Promise<unknown>;
  /** GETs a list page by page (`limit`, `continue`); an expired `continue` (410) lists again unpaged. */
  list(path: string, options?: KubeListOptions): Promise<KubeList>;
  /**
   * Watches a list path (with `resourceVersion` and selectors; `watch=true` is added): `onEvent` for every event.
   * A refused watch rejects `done`; an `ERROR` event (410 Expired: list again) is delivered, and the caller stops.
   */
  watch(path: string, onEvent: (event: KubeWatchEvent) => void): KubeWatch;
  /** POSTs a new object; resolves with the stored one. */
  create(path: string, body: unknown): Promise<unknown>;
  /** PUTs (replaces) an object; a stale `metadata.resourceVersion` rejects with a 409. */
  update(path: string, body: unknown): Promise<unknown>;
  /**
   * PATCHes an object with a body of `contentType` (`application/merge-patch+json`, or `application/apply-patch+yaml`
   * for server-side apply, whose path names `fieldManager`); resolves with the stored object.
   */
  patch(path: string, body: unknown, contentType: string): Promise<unknown>;
  /** DELETEs an object (or, on a collection path, a collection); a failed precondition rejects with a 409. */
  delete(path: string, options?: { readonly preconditions?: KubePreconditions }): Promise<unknown>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
const DEFAULT_PAGE_SIZE = 500;
/** A `continue` token that expired (410 Gone). */
const EXPIRED = Symbol('expired');

/** One page of a list answer. */
interface ListPage {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: unknown[];
}

/** Creates the Kubernetes API client for one API server and its credentials. */
export function createKubeClient(options: KubeClientOptions): KubeClient {
  const { access } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_BYTES;
  const send = (method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> =>
    sendKubeJson(access, { method, path, body, contentType, timeoutMs, maxResponseBytes });

  const listPages = async (path: string, pageSize: number): Promise<KubeList> => {
    const items: unknown[] = [];
    let token: string | undefined;
    let resourceVersion: string | undefined;
    do {
      const params: Record<string, string> = pageSize > 0 ? { limit: String(pageSize) } : {};
      if (token !== undefined) params['continue'] = token;
      const continued = token !== undefined;
      const page = await send('GET', withQuery(path, params)).catch((error: unknown) => {
        if (continued && error instanceof KubeApiError && error.status === 410) return EXPIRED;
        throw error;
      });
      // The snapshot the pages come from was compacted away: what is left must come in one answer.
      if (page === EXPIRED) return listPages(path, 0);
      const { metadata, items: pageItems } = (page ?? {}) as ListPage;
      for (const item of pageItems ?? []) items.push(item);
      resourceVersion = metadata?.resourceVersion;
      token = metadata?.continue === '' ? undefined : metadata?.continue;
    } while (token !== undefined);
    return { resourceVersion, items };
  };

  return {
    get: (path) => send('GET', path),
    list: (path, listOptions = {}) => listPages(path, listOptions.pageSize ?? DEFAULT_PAGE_SIZE),
    watch: (path, onEvent) =>
      openKubeWatch(access, { path, onEvent, timeoutMs, maxLineBytes: maxResponseBytes }),
    create: (path, body) => send('POST', path, body),
    update: (path, body) => send('PUT', path, body),
    patch: (path, body, contentType) => send('PATCH', path, body, contentType),
    delete(path, deleteOptions = {}) {
      const { preconditions } = deleteOptions;
      const body =
        preconditions === undefined ? undefined : { kind: 'DeleteOptions', apiVersion: 'v1', preconditions };
      return send('DELETE', path, body);
    },
  };
}
