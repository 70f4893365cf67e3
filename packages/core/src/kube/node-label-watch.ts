import type { KubeApiAccess } from './kube-api-access';
import { KubeApiError } from './kube-api-error';
import { createKubeClient } from './kube-client';

/** A Node object is far smaller than this; a larger answer is no Node. */
const MAX_NODE_BYTES = 4 * 1024 * 1024;

/** Options of {@link createNodeLabelWatch}. */
export interface NodeLabelWatchOptions {
  readonly access: KubeApiAccess;
  readonly nodeName: string;
  /** How often the node is read again (default 10 s). */
  readonly intervalMs?: number;
  /** Called after a read whose labels differ from the previous read's. */
  readonly onChange: (labels: Readonly<Record<string, string>>) => void;
  /** Called when a read fails (the last labels stay). */
  readonly onError: (error: Error) => void;
}

/** A node's labels, read from the API server (`get nodes`) and read again every interval. */
export interface NodeLabelWatch {
  /** The labels of the last successful read; undefined before one. */
  current(): Readonly<Record<string, string>> | undefined;
  /** Reads now; resolves whether it succeeded. */
  refresh(): Promise<boolean>;
  /** Starts the periodic reads. */
  start(): void;
  stop(): void;
}

/** Reads a node's labels through the API server, periodically; needs RBAC `get` on `nodes`. */
export function createNodeLabelWatch(options: NodeLabelWatchOptions): NodeLabelWatch {
  let labels: Readonly<Record<string, string>> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastError: string | undefined;
  const path = `/api/v1/nodes/${encodeURIComponent(options.nodeName)}`;
  const client = createKubeClient({ access: options.access, maxResponseBytes: MAX_NODE_BYTES });
  const refresh = async (): Promise<boolean> => {
    let node: unknown;
    try {
      node = await client.get(path);
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      const message =
        err instanceof KubeApiError && err.status === 403
          ? `${err.message} (grant the service account get on nodes, or select configurations by node name)`
          : err.message;
      if (message !== lastError) options.onError(new Error(message));
      lastError = message;
      return false;
    }
    lastError = undefined;
    const raw = (node as { metadata?: { labels?: unknown } } | null)?.metadata?.labels;
    const next: Record<string, string> = {};
    if (typeof raw === 'object' && raw !== null)
      for (const [key, value] of Object.entries(raw)) if (typeof value === 'string') next[key] = value;
    const changed = labels === undefined || JSON.stringify(labels) !== JSON.stringify(next);
    labels = next;
    if (changed) options.onChange(next);
    return true;
  };
  return {
    current: () => labels,
    refresh,
    start() {
      if (timer !== undefined) return;
      timer = setInterval(() => void refresh(), options.intervalMs ?? 10_000);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
