// Resolves Debian binary packages from the archive's signed indexes over HTTPS, without apt: each suite's
// InRelease (signature checked with gpgv and the Debian archive keyring), the sha256 of its
// main/binary-<arch>/Packages.xz taken from there, the index fetched (by hash) and checked, unpacked with
// xz and parsed. Also decides what replaces a pinned .deb that the archive no longer serves.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareVersions } from './debian-version.mjs';

/** Debian's archives: indexes are fetched from `index` (HTTPS); .deb URLs are written with `pool` (apt's http form; every .deb is pinned by sha256). */
export const debianArchives = {
  debian: {
    index: 'https://deb.debian.org/debian',
    pool: 'http://deb.debian.org/debian',
    poolPrefix: 'pool/',
  },
  security: {
    index: 'https://security.debian.org/debian-security',
    pool: 'http://security.debian.org/debian-security',
    poolPrefix: 'pool/updates/',
  },
};

/** The Debian 12 suites the image's libraries come from, in the order that wins a tie on version. */
export const bookwormSuites = [
  { name: 'bookworm', archive: 'debian' },
  { name: 'bookworm-updates', archive: 'debian' },
  { name: 'bookworm-security', archive: 'security' },
];

/** Where the Debian archive signing keys live on a Debian or Ubuntu host (package debian-archive-keyring). */
export const defaultKeyring = '/usr/share/keyrings/debian-archive-keyring.gpg';

/** A fetch answered with an HTTP status other than 2xx. */
export class HttpStatusError extends Error {
  constructor(url, status) {
    super(`${url}: HTTP ${status}`);
    this.url = url;
    this.status = status;
  }
}

/** Parses the fields of one deb822 paragraph text into a Map (continuation lines joined with "\n"). */
function parseFields(lines, firstLine, what) {
  const fields = new Map();
  let last;
  lines.forEach((line, offset) => {
    if (line.startsWith(' ') || line.startsWith('\t')) {
      if (last === undefined)
        throw new Error(`${what} line ${firstLine + offset}: continuation without a field`);
      fields.set(last, `${fields.get(last)}\n${line.slice(1)}`);
      return;
    }
    const colon = line.indexOf(':');
    if (colon <= 0 || !/^[!-9;-~]+$/.test(line.slice(0, colon))) {
      throw new Error(
        `${what} line ${firstLine + offset}: not a "Field: value" line: ${JSON.stringify(line.slice(0, 80))}`,
      );
    }
    last = line.slice(0, colon);
    fields.set(last, line.slice(colon + 1).trim());
  });
  return fields;
}

/**
 * Parses a Packages index into `{ name, version, arch, filename, sha256 }` entries; throws an Error naming
 * the line for anything that is not a well-formed index (missing fields, a bad sha256, an unsafe Filename).
 */
export function parsePackages(text) {
  if (typeof text !== 'string') throw new Error('Packages: not text');
  const entries = [];
  const lines = text.split('\n');
  let start = 0;
  for (let i = 0; i <= lines.length; i += 1) {
    const line = lines[i];
    if (line !== undefined && line.trim() !== '') continue;
    if (i > start) {
      const fields = parseFields(lines.slice(start, i), start + 1, 'Packages');
      const get = (name) => {
        const value = fields.get(name);
        if (!value) throw new Error(`Packages line ${start + 1}: the paragraph has no ${name} field`);
        return value;
      };
      const entry = {
        name: get('Package'),
        version: get('Version'),
        arch: get('Architecture'),
        filename: get('Filename'),
        sha256: get('SHA256'),
      };
      if (!/^[a-z0-9][a-z0-9+.-]+$/.test(entry.name)) {
        throw new Error(`Packages line ${start + 1}: bad package name ${JSON.stringify(entry.name)}`);
      }
      if (!/^[0-9a-f]{64}$/.test(entry.sha256)) {
        throw new Error(`Packages line ${start + 1}: bad SHA256 for ${entry.name}`);
      }
      if (
        !/^pool\/[A-Za-z0-9+.~_/-]+\.deb$/.test(entry.filename) ||
        entry.filename.split('/').includes('..')
      ) {
        throw new Error(`Packages line ${start + 1}: unsafe Filename ${JSON.stringify(entry.filename)}`);
      }
      entries.push(entry);
    }
    start = i + 1;
  }
  return entries;
}

/**
 * Parses the signed text of an InRelease file: its `Date`, `Valid-Until` (Date or undefined),
 * `Acquire-By-Hash` and its SHA256 list as a Map path → `{ sha256, size }`. Throws on a malformed file.
 */
export function parseRelease(text) {
  if (typeof text !== 'string') throw new Error('Release: not text');
  const lines = text.replace(/\n+$/, '').split('\n');
  const end = lines.findIndex((line) => line.trim() === '');
  const fields = parseFields(end === -1 ? lines : lines.slice(0, end), 1, 'Release');
  const sha256 = new Map();
  for (const line of (fields.get('SHA256') ?? '').split('\n')) {
    if (line.trim() === '') continue;
    const match = /^\s*([0-9a-f]{64})\s+(\d+)\s+(\S+)\s*$/.exec(line);
    if (!match) throw new Error(`Release: bad SHA256 line ${JSON.stringify(line.slice(0, 100))}`);
    sha256.set(match[3], { sha256: match[1], size: Number(match[2]) });
  }
  if (sha256.size === 0) throw new Error('Release: no SHA256 list');
  const date = (name) => {
    const value = fields.get(name);
    if (value === undefined) return undefined;
    const parsed = new Date(value);
    if (Number.isNaN(parsed.getTime())) throw new Error(`Release: bad ${name} ${JSON.stringify(value)}`);
    return parsed;
  };
  return {
    date: date('Date'),
    validUntil: date('Valid-Until'),
    byHash: fields.get('Acquire-By-Hash') === 'yes',
    sha256,
  };
}

/** The signed text of a clearsigned message, without the signature (used only when gpgv is unavailable). */
export function clearsignedText(text) {
  const lines = text.split('\n');
  if (lines[0]?.trim() !== '-----BEGIN PGP SIGNED MESSAGE-----')
    throw new Error('InRelease: not a clearsigned message');
  const body = lines.indexOf('', 1);
  const signature = lines.findIndex((line) => line.trim() === '-----BEGIN PGP SIGNATURE-----');
  if (body === -1 || signature < body) throw new Error('InRelease: no signed text');
  return `${lines
    .slice(body + 1, signature)
    .map((line) => (line.startsWith('- ') ? line.slice(2) : line))
    .join('\n')}\n`;
}

/** A .deb URL as apt prints it: the archive's pool URL and the Filename with `+`, `~` and the like %-quoted. */
export function debUrl(archive, filename) {
  const quoted = filename.replace(
    /[^A-Za-z0-9/._-]/g,
    (char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return `${archive.pool}/${quoted}`;
}

function execFileWithInput(command, args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    // A tool that exits early reports through its exit code, not through a broken stdin pipe.
    child.stdin.on('error', (error) => err.push(Buffer.from(String(error.message))));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`${command} ${args.join(' ')} failed: ${Buffer.concat(err).toString().trim()}`));
    });
    child.stdin.end(input);
  });
}

const sha256Hex = (data) => createHash('sha256').update(data).digest('hex');

/**
 * A Debian archive client: `createDebianArchive({ cacheDir, fetch, gpgv, keyring, suites, warn, now })`.
 * `fetch` defaults to the global one, `gpgv` to the `gpgv` on PATH, `keyring` to {@link defaultKeyring}.
 * Without gpgv or the keyring it warns once and trusts the indexes on HTTPS alone.
 */
export function createDebianArchive({
  cacheDir,
  fetch = globalThis.fetch,
  gpgv = 'gpgv',
  keyring = defaultKeyring,
  suites = bookwormSuites,
  archives = debianArchives,
  warn = (message) => console.warn(`warning: ${message}`),
  now = () => new Date(),
} = {}) {
  const releases = new Map();
  const indexes = new Map();
  let verifiedBySignature;

  async function get(url, method = 'GET') {
    const response = await fetch(url, { method });
    if (!response.ok) throw new HttpStatusError(url, response.status);
    return method === 'HEAD' ? Buffer.alloc(0) : Buffer.from(await response.arrayBuffer());
  }

  /** gpgv's output of the signed text, or undefined when gpgv or the keyring is missing. */
  async function verified(suite, data) {
    if (!existsSync(keyring)) return undefined;
    const dir = join(cacheDir, 'debian-index');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${suite.name}.InRelease.${process.pid}`);
    writeFileSync(file, data);
    try {
      return await new Promise((resolve, reject) => {
        execFile(
          gpgv,
          ['--quiet', '--keyring', keyring, '--output', '-', file],
          { encoding: 'buffer', maxBuffer: 16 << 20 },
          (error, stdout, stderr) => {
            if (error?.code === 'ENOENT') resolve(undefined);
            else if (error)
              reject(
                new Error(
                  `${suite.name} InRelease: bad signature (gpgv: ${stderr.toString().trim() || error.message})`,
                ),
              );
            else resolve(stdout.toString('utf8'));
          },
        );
      });
    } finally {
      rmSync(file, { force: true });
    }
  }

  /** The parsed, verified InRelease of `suite` (fetched once per archive client, i.e. per build). */
  function release(suite) {
    if (!releases.has(suite.name)) {
      releases.set(
        suite.name,
        (async () => {
          const archive = archives[suite.archive];
          const data = await get(`${archive.index}/dists/${suite.name}/InRelease`);
          let text = await verified(suite, data);
          if (text === undefined) {
            if (!archive.index.startsWith('https://')) {
              throw new Error(
                `${suite.name}: cannot check InRelease (no gpgv or ${keyring}) and ${archive.index} is not HTTPS`,
              );
            }
            if (verifiedBySignature === undefined) {
              warn(
                `gpgv or ${keyring} is missing: Debian indexes are trusted on HTTPS alone (apt-get install -y gpgv debian-archive-keyring)`,
              );
            }
            verifiedBySignature = false;
            text = clearsignedText(data.toString('utf8'));
          } else verifiedBySignature ??= true;
          const parsed = parseRelease(text);
          if (parsed.validUntil && parsed.validUntil < now()) {
            throw new Error(
              `${suite.name} InRelease expired on ${parsed.validUntil.toISOString()} (a stale mirror, or a wrong clock)`,
            );
          }
          return parsed;
        })(),
      );
    }
    return releases.get(suite.name);
  }

  /** The entries of `suite`'s main/binary-<arch>/Packages, by package name. */
  function index(suite, arch) {
    const key = `${suite.name}/${arch}`;
    if (!indexes.has(key)) {
      indexes.set(
        key,
        (async () => {
          const parsed = await release(suite);
          const path = `main/binary-${arch}/Packages.xz`;
          const listed = parsed.sha256.get(path);
          if (!listed) throw new Error(`${suite.name} InRelease lists no ${path}`);
          // Content-addressed: an index file in the cache is only ever used when the fresh InRelease names it.
          const dir = join(cacheDir, 'debian-index');
          const file = join(dir, `${listed.sha256}.Packages.xz`);
          let data = existsSync(file) ? readFileSync(file) : undefined;
          if (!data || sha256Hex(data) !== listed.sha256) {
            const base = `${archives[suite.archive].index}/dists/${suite.name}`;
            const url = parsed.byHash
              ? `${base}/main/binary-${arch}/by-hash/SHA256/${listed.sha256}`
              : `${base}/${path}`;
            data = await get(url);
            const actual = sha256Hex(data);
            if (actual !== listed.sha256)
              throw new Error(`${url}: sha256 mismatch: InRelease says ${listed.sha256}, got ${actual}`);
            mkdirSync(dir, { recursive: true });
            writeFileSync(`${file}.${process.pid}`, data);
            renameSync(`${file}.${process.pid}`, file);
          }
          const text = (await execFileWithInput('xz', ['-dc'], data)).toString('utf8');
          const byName = new Map();
          for (const entry of parsePackages(text)) {
            if (entry.arch !== arch && entry.arch !== 'all') continue;
            byName.set(entry.name, [...(byName.get(entry.name) ?? []), entry]);
          }
          return byName;
        })(),
      );
    }
    return indexes.get(key);
  }

  /** Every version of `name` for `arch` across the suites: `{ name, version, arch, suite, url, sha256 }`. */
  async function candidates(name, arch) {
    const found = [];
    for (const suite of suites) {
      for (const entry of (await index(suite, arch)).get(name) ?? []) {
        found.push({
          name,
          version: entry.version,
          arch,
          suite: suite.name,
          url: debUrl(archives[suite.archive], entry.filename),
          sha256: entry.sha256,
        });
      }
    }
    return found;
  }

  /** The newest version of `name` for `arch` across the suites (the first suite wins a tie). */
  async function resolve(name, arch) {
    let best;
    for (const candidate of await candidates(name, arch)) {
      if (!best || compareVersions(candidate.version, best.version) > 0) best = candidate;
    }
    if (!best) throw new Error(`${name}:${arch} is in none of ${suites.map((s) => s.name).join(', ')}`);
    return best;
  }

  /** The URLs where the pinned file of `locked` may also be served: the same pool path on every archive. */
  function sameFileUrls(locked) {
    const archive = Object.values(archives).find((a) =>
      [a.pool, a.index].some((base) => locked.url.startsWith(`${base}/${a.poolPrefix}`)),
    );
    if (!archive) return [];
    const base = locked.url.startsWith(archive.pool) ? archive.pool : archive.index;
    const tail = locked.url.slice(base.length + 1 + archive.poolPrefix.length);
    return Object.values(archives)
      .map((other) => `${other.pool}/${other.poolPrefix}${tail}`)
      .filter((url) => url !== locked.url);
  }

  /**
   * What replaces a pinned .deb `locked` (`{ name, version, url, sha256 }` from image-lock.json) whose URL
   * answered 404: the same file at another archive's pool (same version, the pinned sha256 still applies),
   * else the newest version in the verified indexes (its sha256 from the index). Any answer but 200 or 404
   * while probing is an error. Returns `{ name, version, arch, url, sha256, source, message }`.
   */
  async function replacement(locked, arch) {
    for (const url of sameFileUrls(locked)) {
      try {
        await get(url, 'HEAD');
        return {
          name: locked.name,
          version: locked.version,
          arch,
          url,
          sha256: locked.sha256,
          source: 'moved',
          message: `${locked.name}:${arch} ${locked.version} moved to ${url} (same version, pinned sha256). Refresh the lock: node tools/image/lock-debs.mjs`,
        };
      } catch (error) {
        if (!(error instanceof HttpStatusError && error.status === 404)) throw error;
      }
    }
    const newest = await resolve(locked.name, arch);
    if (compareVersions(newest.version, locked.version) < 0) {
      throw new Error(
        `${locked.name}:${arch} ${locked.version} is no longer in the Debian archive and the newest there, ${newest.version}, is older: refresh the lock (node tools/image/lock-debs.mjs)`,
      );
    }
    if (compareVersions(newest.version, locked.version) === 0 && newest.sha256 !== locked.sha256) {
      throw new Error(
        `${locked.name}:${arch} ${locked.version}: the archive's index gives sha256 ${newest.sha256}, the lock pins ${locked.sha256}`,
      );
    }
    const how = verifiedBySignature ? 'verified index' : 'index over HTTPS, signature not checked';
    return {
      ...newest,
      source: 'index',
      message: `${locked.name}:${arch} ${locked.version} is no longer in the Debian archive; using ${newest.version} from ${newest.suite} (${how}). Refresh the lock: node tools/image/lock-debs.mjs`,
    };
  }

  return { release, index, candidates, resolve, replacement };
}
