import type { ServerResponse } from 'node:http';
import type { KubeObject, ObjectStore, WatchEvent } from './object-store';
import type { ResourceTarget } from './resource-target';

/** Options of {@link createWatchHandler}. */
export interface WatchHandlerOptions {
  readonly store: ObjectStore;
}

/** Serves watch streams and ends them all on close. */
export interface WatchHandler {
  /**
   * Streams the target's changes as newline-delimited JSON until the client goes or `timeoutSeconds` pass;
   * `encode` turns each event's object into what the client asked for (another version, a Table).
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
  const watches = new Set<ServerResponse>();
  return {
    serve: (response, target, query, encode) => {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      response.flushHeaders();
      const write = (event: WatchEvent): void => {
        const object =
          encode === undefined || event.type === 'ERROR' ? event.object : encode(event.object as KubeObject);
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
          ...(query.get('resourceVersion') === null
            ? {}
            : { resourceVersion: query.get('resourceVersion') ?? '' }),
        },
        write,
      );
      watches.add(response);
      const timeout = Number(query.get('timeoutSeconds') ?? '0');
      const timer = timeout > 0 ? setTimeout(() => response.end(), timeout * 1000) : undefined;
      timer?.unref();
      response.on('close', () => {
        stop();
        if (timer !== undefined) clearTimeout(timer);
        watches.delete(response);
      });
    },
    endAll: () => {
      for (const response of watches) response.end();
    },
  };
}
