import { open, stat } from 'node:fs/promises';
import { posix } from 'node:path';

/** Whether a device node can be handed to a container, and why not. */
export type DevNodeState =
  | { readonly ok: true; readonly kind: 'char' | 'placeholder' }
  | { readonly ok: false; readonly reason: string };

/** Placeholders that kdp-replay.sh writes for captured device nodes: "c MAJOR:MINOR". */
const PLACEHOLDER = /^c \d{1,10}:\d{1,10}\s*$/;

/**
 * Checks that `hostPath` (e.g. "/dev/nvidia0") is a character device under `devRoot`. A regular file holding
 * "c MAJOR:MINOR" counts too: that is how a replayed capture or a test fixture stands for a device node.
 * The node itself is never opened; a placeholder file is read (64 bytes at most).
 */
export async function checkDevNode(devRoot: string, hostPath: string): Promise<DevNodeState> {
  const relative = posix.normalize(hostPath).replace(/^\/dev\/?/, '');
  if (relative === '' || relative.startsWith('..'))
    return { ok: false, reason: `${hostPath}: not under /dev` };
  const path = posix.join(devRoot, relative);
  let info;
  try {
    info = await stat(path);
  } catch {
    return { ok: false, reason: `${hostPath} is missing` };
  }
  if (info.isCharacterDevice()) return { ok: true, kind: 'char' };
  if (info.isFile() && info.size <= 64) {
    const handle = await open(path, 'r').catch(() => undefined);
    if (handle !== undefined) {
      try {
        const buffer = Buffer.alloc(64);
        const { bytesRead } = await handle.read(buffer, 0, 64, 0);
        if (PLACEHOLDER.test(buffer.subarray(0, bytesRead).toString('latin1'))) {
          return { ok: true, kind: 'placeholder' };
        }
      } catch {
        // Unreadable: not a placeholder.
      } finally {
        await handle.close().catch(() => undefined);
      }
    }
  }
  return { ok: false, reason: `${hostPath} is not a character device` };
}
