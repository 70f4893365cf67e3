import { basename, dirname, join } from 'node:path';

/** Where one node of the playground lives: its name, the plugin-watcher directory and pod-resources socket of its kubelet. */
export interface PlaygroundNodeLayout {
  /** The node's name. */
  readonly name: string;
  /** Where the node's DRA drivers register. */
  readonly pluginsRegistryDir: string;
  /** Where the node's kubelet serves pod-resources, if it does. */
  readonly podResourcesSocket?: string;
  /** The kubelet's own directory (kubelet.sock, checkpoints). */
  readonly kubeletDir: string;
}

/**
 * The nodes of a playground of `count` nodes: the first is `nodeName` and uses `pluginsRegistryDir` and
 * `podResourcesSocket` as given; node i (2…count) is `<nodeName>-<i>`, whose drivers register in
 * `<pluginsRegistryDir>/<node>` and whose pod-resources socket is `<dirname(socket)>/<node>/<basename(socket)>`.
 */
export function playgroundNodes(options: {
  readonly nodeName: string;
  readonly count: number;
  readonly pluginsRegistryDir: string;
  readonly podResourcesSocket: string | undefined;
  readonly stateDir: string;
}): PlaygroundNodeLayout[] {
  const { podResourcesSocket } = options;
  return Array.from({ length: options.count }, (_, i) => {
    const first = i === 0;
    const name = first ? options.nodeName : `${options.nodeName}-${i + 1}`;
    const socket =
      podResourcesSocket === undefined || first
        ? podResourcesSocket
        : join(dirname(podResourcesSocket), name, basename(podResourcesSocket));
    return {
      name,
      pluginsRegistryDir: first ? options.pluginsRegistryDir : join(options.pluginsRegistryDir, name),
      ...(socket === undefined ? {} : { podResourcesSocket: socket }),
      kubeletDir: join(options.stateDir, name),
    };
  });
}
