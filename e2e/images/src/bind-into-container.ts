import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

// Enters the container's mount namespace (setns) and bind-mounts there: python3's ctypes calls libc directly, so
// nothing has to exist inside the image (which has no mount binary and no shell).
const BIND = `
import ctypes, os, sys
pid, source, target = sys.argv[1], sys.argv[2], sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open('/proc/%s/ns/mnt' % pid, os.O_RDONLY)
if libc.setns(fd, 0x00020000) != 0:
    raise OSError(ctypes.get_errno(), 'setns')
if libc.mount(source.encode(), target.encode(), None, 4096 | 16384, None) != 0:
    raise OSError(ctypes.get_errno(), 'mount %s on %s' % (source, target))
`;

/**
 * Bind-mounts `source` (a path inside the container) on `target` (another path inside it) in the mount namespace
 * of the container whose process is `pid`: how a test lays fixture files over the container's own procfs
 * (`/proc/driver`), where runc refuses a bind mount in the spec. Needs root and python3.
 */
export async function bindIntoContainer(pid: number, source: string, target: string): Promise<void> {
  await run('python3', ['-c', BIND, String(pid), source, target]);
}
