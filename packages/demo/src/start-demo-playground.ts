import { join } from 'node:path';
import { createDraPlayground, writeKubeconfig, type DraPlayground } from '@kdp/kubelet-sim';
import type { DraDirs } from './plugin-processes';

/** Where the demo's DRA playground keeps its files and finds the node. */
export interface DemoPlaygroundOptions {
  /** The demo's directory: the playground's kubelet state goes to `<base>/playground`. */
  readonly base: string;
  readonly dra: DraDirs;
  /** Where the DRA driver writes its CDI specs. */
  readonly cdiDir: string;
  /** The sample node's /dev. */
  readonly devRoot: string;
}

/**
 * Starts kubelet-sim's DRA playground with one node, `dra.nodeName` (its plugin watcher on
 * `dra.pluginsRegistryDir`), and writes the kubeconfig for it (URL, token, CA) to `dra.kubeconfig`.
 */
export async function startDemoPlayground(options: DemoPlaygroundOptions): Promise<DraPlayground> {
  const { dra } = options;
  const playground = await createDraPlayground({
    pluginsRegistryDir: dra.pluginsRegistryDir,
    stateDir: join(options.base, 'playground'),
    nodeName: dra.nodeName,
    cdiDir: options.cdiDir,
    devRoot: options.devRoot,
  });
  try {
    await writeKubeconfig(dra.kubeconfig, {
      server: playground.url,
      token: playground.token,
      caData: playground.caData,
      context: 'kdp-demo',
    });
  } catch (err) {
    await playground.close();
    throw err;
  }
  return playground;
}
