import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundleEntry, type EntryBundle } from '@kdp/kubelet-sim/testing';

/**
 * Bundles `src/main.ts` as the build target does (`usb` left external) into a private directory under the
 * package's `dist/`, where `require('usb')` finds the workspace's node_modules; `remove()` deletes it.
 */
export function bundleUsbPlugin(): EntryBundle {
  const dist = join(__dirname, '..', '..', 'dist');
  mkdirSync(dist, { recursive: true });
  const dir = mkdtempSync(join(dist, 'test-'));
  const bundle = bundleEntry(join(__dirname, '..', 'main.ts'), {
    outfile: join(dir, 'main.js'),
    external: ['usb'],
  });
  return { path: bundle.path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
