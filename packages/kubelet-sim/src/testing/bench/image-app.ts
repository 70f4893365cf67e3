import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';

/**
 * What an image holds in /app for `bundle` (`tools/image/image-app.mjs`): `main.js`, the bundle and its V8 code
 * cache made by `node` with the images' environment, written beside the bundle, in `image-app/`. Returns that
 * `main.js`: a bench starts it with `node` and `imageProcessEnv`, as the image starts its `/app/main.js`.
 */
export function imageApp(workspaceRoot: string, bundle: string, node: string): string {
  const out = join(dirname(bundle), 'image-app');
  const script = join(workspaceRoot, 'tools', 'image', 'image-app.mjs');
  execFileSync(process.execPath, [script, '--node', node, bundle, out], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return join(out, 'main.js');
}
