import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every directory under root holding a kustomization.yaml, relative to root and sorted (helm/ is no kustomize). */
export function kustomizationDirs(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    if (existsSync(join(dir, 'kustomization.yaml'))) found.push(relative(root, dir));
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !['node_modules', 'helm', 'src'].includes(entry.name))
        walk(join(dir, entry.name));
    }
  };
  walk(root);
  return found.sort();
}
