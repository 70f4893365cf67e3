import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The environment every image starts Node with (beyond `PATH`): `env` of `tools/image/node-runtime.json`,
 * which the image builder writes into each image's config.
 */
export function readImageEnv(workspaceRoot: string): Readonly<Record<string, string>> {
  const file = join(workspaceRoot, 'tools', 'image', 'node-runtime.json');
  const { env } = JSON.parse(readFileSync(file, 'utf8')) as { env?: unknown };
  if (typeof env !== 'object' || env === null || !Object.values(env).every((v) => typeof v === 'string'))
    throw new Error(`${file}: "env" must map names to strings`);
  return env as Record<string, string>;
}

/**
 * The whole environment a bench starts a plugin with, as its image would: the image's variables
 * (`env` of `tools/image/node-runtime.json`) and the host's `PATH`, nothing else of the host's. A host's `NODE_OPTIONS`,
 * `NODE_EXTRA_CA_CERTS` (this machine sets it: Node then parses a CA bundle into every process) or `UV_*` would
 * change what is measured. `PATH` is kept for the tools a bench may start; the plugins look nothing up in it.
 */
export function imageProcessEnv(
  workspaceRoot: string,
  hostEnv: NodeJS.ProcessEnv = process.env,
): Readonly<Record<string, string>> {
  return { ...hostOnly(hostEnv), ...readImageEnv(workspaceRoot) };
}

/**
 * The environment a bench starts a process with that has no image of its own (a baseline such as the naive
 * plugin): the host's `PATH` only, so that it runs under the same conditions as the plugin it is compared with.
 */
export function plainProcessEnv(hostEnv: NodeJS.ProcessEnv = process.env): Readonly<Record<string, string>> {
  return hostOnly(hostEnv);
}

function hostOnly(hostEnv: NodeJS.ProcessEnv): Record<string, string> {
  return hostEnv['PATH'] === undefined ? {} : { PATH: hostEnv['PATH'] };
}
