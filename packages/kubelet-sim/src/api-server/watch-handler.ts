import type { ServerResponse } from 'node:http';
import { invalid, type StatusCause } from './api-errors';
import type { KubeObject, ObjectStore, WatchEvent } from './object-store';
import type { ResourceTarget } from './resource-target';

/** Options of {@link createWatchHandler}. */
export interface WatchHandlerOptions {
  readonly store: ObjectStore;
  /** How often a watch that allows bookmarks gets one (the current resourceVersion); default 60 s. */
  readonly bookmarkIntervalMs?: number;
}

/** The annotation of the BOOKMARK that ends the initial events of a `sendInitialEvents=true` watch. */
const initialEventsEnd = 'k8s.io/initial-events-end';

/** What a watch asked for beyond its selectors, checked as kube-apiserver checks ListOptions for a watch. */
interface WatchMode {
  /** `sendInitialEvents`: true, false, or not given. */
  readonly initialEvents: boolean | undefined;
  readonly bookmarks: boolean;
}

const flag = (value: string | null): boolean | undefined =>
  value === null ? undefined : value === 'true' || value === '1';

function watchMode(query: URLSearchParams): WatchMode {
  const initialEvents = flag(query.get('sendInitialEvents'));
  const bookmarks = flag(query.get('allowWatchBookmarks')) === true;
  const match = query.get('resourceVersionMatch') ?? '';
  const causes: StatusCause[] = [];
  if (initialEvents !== undefined) {
    if (!bookmarks)
      causes.push({
        reason: 'FieldValueForbidden',
        field: 'allowWatchBookmarks',
        message: 'Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true',
      });
    if (match !== 'NotOlderThan')
      causes.push({
        reason: 'FieldValueForbidden',
        field: 'resourceVersionMatch',
        message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      });
  } else if (match !== '') {
    causes.push({
      reason: 'FieldValueForbidden',
      field: 'resourceVersionMatch',
      message: 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    });
  }
  if (causes.length > 0) throw invalid('ListOptions', 'meta.k8s.io', '', causes);
  return { initialEvents, bookmarks };
}

/** Where the store's watch starts: every current object first (undefined), or the changes after a version. */
function startVersion(query: URLSearchParams, mode: WatchMode, store: ObjectStore): string | undefined {
  const rv = query.get('resourceVersion') ?? '';
  if (mode.initialEvents === true) return undefined; // the current state, not older than any version asked for
  if (mode.initialEvents === false && (rv === '' || rv === '0')) return String(store.resourceVersion());
  return query.get('resourceVersion') ?? undefined;
}

/** Serves watch streams and ends them all on close. */
export interface WatchHandler {
  /**
   * Streams the target's changes as newline-delimited JSON until the client goes or `timeoutSeconds` pass;
   * `encode` turns each event's object into what the client asked for (another version, a Table). As
   * kube-apiserver: `sendInitialEvents=true` sends the current objects, then a BOOKMARK annotated
   * `k8s.io/initial-events-end`; `allowWatchBookmarks=true` adds a BOOKMARK with the current resourceVersion
   * every `bookmarkIntervalMs`.
   */
  serve(
    response: ServerResponse,
    target: ResourceTarget,
    query: URLSearchParams,
    encode?: (object: KubeObject) => unknown,
  ): void;
  /** Ends every open watch. */
  endAll(): void;
}

/** Creates the handler of `?watch=true` requests. */
export function createWatchHandler(options: WatchHandlerOptions): WatchHandler {
  const { store } = options;
  const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
  const watches = new Set<ServerResponse>();
  return {
    serve: (response, target, query, encode) => {
      const mode = watchMode(query);
      const from = startVersion(query, mode, store);
      const bookmark = (annotations?: Record<string, string>): WatchEvent => ({
        type: 'BOOKMARK',
        object: {
          apiVersion: target.type.group === '' ? target.version : `${target.type.group}/${target.version}`,
          kind: target.type.kind,
          metadata: {
            resourceVersion: String(store.resourceVersion()),
            ...(annotations === undefined ? {} : { annotations }),
          },
        },
      });
      response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      response.flushHeaders();
      const write = (event: WatchEvent): void => {
        const object =
          encode === undefined || event.type === 'ERROR' || event.type === 'BOOKMARK'
            ? event.object
            : encode(event.object as KubeObject);
        if (!response.writableEnded) response.write(`${JSON.stringify({ type: event.type, object })}\n`);
      };
      const fieldSelector = [
        query.get('fieldSelector'),
        target.name === undefined ? null : `metadata.name=${target.name}`,
      ]
        .filter((s): s is string => s !== null && s !== '')
        .join(',');
      const stop = store.watch(
        target.type.plural,
        {
          ...(target.namespace === undefined ? {} : { namespace: target.namespace }),
          fieldSelector,
          labelSelector: query.get('labelSelector'),
          ...(from === undefined ? {} : { resourceVersion: from }),
        },
        write,
      );
      // The initial events were written synchronously above: the bookmark that ends them comes next.
      if (mode.initialEvents === true) write(bookmark({ [initialEventsEnd]: 'true' }));
      watches.add(response);
      const ticker = mode.bookmarks ? setInterval(() => write(bookmark()), bookmarkIntervalMs) : undefined;
      ticker?.unref();
      const timeout = Number(query.get('timeoutSeconds') ?? '0');
      const timer = timeout > 0 ? setTimeout(() => response.end(), timeout * 1000) : undefined;
      timer?.unref();
      response.on('close', () => {
        stop();
        if (ticker !== undefined) clearInterval(ticker);
        if (timer !== undefined) clearTimeout(timer);
        watches.delete(response);
      });
    },
    endAll: () => {
      for (const response of watches) response.end();
    },
  };
}
