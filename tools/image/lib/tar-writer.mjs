// Deterministic tar (ustar) archives: entries sorted by path, mtime 0, uid/gid 0, no user or group names,
// so that the same files always give the same bytes and therefore the same layer digest.

const BLOCK = 512;

/**
 * One archive entry. `type` is 'file' (with `data`), 'dir' or 'symlink' (with `target`); `mode` defaults to
 * 0o644 for files, 0o755 for directories and 0o777 for links. `origin` (the SBOM component a file comes from)
 * and `pedigree` are for the SBOM only and never written.
 * @typedef {{ path: string, type: 'file' | 'dir' | 'symlink', data?: Buffer, target?: string, mode?: number, origin?: string, pedigree?: object }} TarEntry
 */

/** Splits a path into ustar's prefix (≤155 bytes) and name (≤100 bytes), or throws when it cannot. */
function splitPath(path) {
  if (Buffer.byteLength(path) <= 100) return { prefix: '', name: path };
  for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { prefix, name };
  }
  throw new Error(`tar: path too long for ustar: ${path}`);
}

function octal(value, width) {
  const text = value.toString(8);
  if (text.length > width - 1) throw new Error(`tar: ${value} does not fit ${width - 1} octal digits`);
  return text.padStart(width - 1, '0') + '\0';
}

function header(entry, size) {
  const block = Buffer.alloc(BLOCK);
  const { prefix, name } = splitPath(entry.type === 'dir' ? `${entry.path}/` : entry.path);
  const defaultMode = entry.type === 'file' ? 0o644 : entry.type === 'dir' ? 0o755 : 0o777;
  block.write(name, 0, 100, 'utf8');
  block.write(octal(entry.mode ?? defaultMode, 8), 100, 8, 'ascii');
  block.write(octal(0, 8), 108, 8, 'ascii'); // uid
  block.write(octal(0, 8), 116, 8, 'ascii'); // gid
  block.write(octal(size, 12), 124, 12, 'ascii');
  block.write(octal(0, 12), 136, 12, 'ascii'); // mtime: the epoch, always
  block.fill(' ', 148, 156); // checksum placeholder
  block.write(entry.type === 'file' ? '0' : entry.type === 'dir' ? '5' : '2', 156, 1, 'ascii');
  if (entry.type === 'symlink') {
    if (entry.target === undefined || Buffer.byteLength(entry.target) > 100) {
      throw new Error(`tar: bad symlink target for ${entry.path}`);
    }
    block.write(entry.target, 157, 100, 'utf8');
  }
  block.write('ustar\0', 257, 6, 'ascii');
  block.write('00', 263, 2, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(octal(sum, 7) + ' ', 148, 8, 'ascii');
  return block;
}

/** Adds the missing parent directories of every entry, so that each layer is complete on its own. */
function withParents(entries) {
  const byPath = new Map(entries.map((entry) => [entry.path, entry]));
  for (const entry of entries) {
    const parts = entry.path.split('/');
    for (let i = 1; i < parts.length; i += 1) {
      const dir = parts.slice(0, i).join('/');
      if (!byPath.has(dir)) byPath.set(dir, { path: dir, type: 'dir' });
    }
  }
  return [...byPath.values()];
}

/**
 * Writes `entries` as one tar archive (a Buffer), sorted by path, with their parent directories added.
 * Paths are relative (no leading slash). The same entries always give the same bytes.
 * @param {TarEntry[]} entries
 * @returns {Buffer}
 */
export function createTar(entries) {
  for (const entry of entries) {
    if (entry.path.startsWith('/') || entry.path.split('/').some((part) => part === '' || part === '..')) {
      throw new Error(`tar: bad entry path: ${entry.path}`);
    }
  }
  const sorted = withParents(entries).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const chunks = [];
  for (const entry of sorted) {
    const data = entry.type === 'file' ? (entry.data ?? Buffer.alloc(0)) : Buffer.alloc(0);
    chunks.push(header(entry, data.length), data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad > 0) chunks.push(Buffer.alloc(pad));
  }
  chunks.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(chunks);
}
