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
