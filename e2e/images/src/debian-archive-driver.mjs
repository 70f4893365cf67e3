// Runs tools/image/lib/debian-archive.mjs for debian-archive.spec.ts in a child process (jest cannot import
// an ES module without --experimental-vm-modules). Reads one JSON request on stdin, writes one JSON answer.
// `replacement` and `resolve` run against a fake archive built here from the request (unsigned InRelease,
// xz-compressed Packages served by hash), through the module's injected fetch.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const modulePath = resolve(import.meta.dirname, '../../../tools/image/lib/debian-archive.mjs');
const versionPath = resolve(import.meta.dirname, '../../../tools/image/lib/debian-version.mjs');
const archiveModule = await import(pathToFileURL(modulePath).href);
const lockedDebsPath = resolve(import.meta.dirname, '../../../tools/image/lib/locked-debs.mjs');
const { createLockedDebs } = await import(pathToFileURL(lockedDebsPath).href);
const { compareVersions } = await import(pathToFileURL(versionPath).href);

/** `{ ok: value }` or `{ error: { name, message } }`, so a throw is data the spec can check. */
function attempt(fn) {
  try {
    return { ok: fn() };
  } catch (error) {
    return {
      error: { name: error?.constructor?.name ?? typeof error, message: String(error?.message ?? error) },
    };
  }
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** A fake fetch serving `suites` ({ name: { base, packages: { arch: text }, tamper } }) and `debs` ({ url: status }). */
function fakeArchive({ suites, debs }) {
  const routes = new Map();
  for (const [name, suite] of Object.entries(suites)) {
    const dist = `${suite.base}/dists/${name}`;
    const lines = [];
    for (const [arch, text] of Object.entries(suite.packages)) {
      const xz = execFileSync('xz', ['-c'], { input: Buffer.from(text) });
      const hash = sha256(xz);
      lines.push(` ${hash} ${xz.length} main/binary-${arch}/Packages.xz`);
      routes.set(`${dist}/main/binary-${arch}/by-hash/SHA256/${hash}`, {
        status: 200,
        body: suite.tamper ? Buffer.concat([xz, Buffer.from('x')]) : xz,
      });
    }
    const release = [
      `Suite: ${name}`,
      'Date: Sat, 11 Jul 2026 10:16:37 UTC',
      'Acquire-By-Hash: yes',
      'SHA256:',
      ...lines,
    ];
    const signed = `-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n${release.join('\n')}\n-----BEGIN PGP SIGNATURE-----\n\nnot checked\n-----END PGP SIGNATURE-----\n`;
    routes.set(`${dist}/InRelease`, { status: 200, body: Buffer.from(signed) });
  }
  for (const [url, status] of Object.entries(debs ?? {})) routes.set(url, { status, body: Buffer.alloc(0) });
  const requests = [];
  const fetch = async (url, init) => {
    requests.push(`${init?.method ?? 'GET'} ${url}`);
    const route = routes.get(url) ?? { status: 404, body: Buffer.alloc(0) };
    return new Response(route.status === 200 ? route.body : null, { status: route.status });
  };
  return { fetch, requests };
}

async function main(request) {
  switch (request.op) {
    case 'compare':
      return request.pairs.map(([a, b]) => attempt(() => compareVersions(a, b)));
    case 'parsePackages':
      return request.texts.map((text) => attempt(() => archiveModule.parsePackages(text)));
    case 'parseRelease':
      return request.texts.map((text) =>
        attempt(() => {
          const parsed = archiveModule.parseRelease(text);
          return { ...parsed, sha256: Object.fromEntries(parsed.sha256) };
        }),
      );
    case 'lockedDebs': {
      // download() fails for the pin as `failure` says (404, another status, 'sha256', or null: no failure).
      const warnings = [];
      let archiveCreated = false;
      const download = async (cacheDir, url, sha256) => {
        if (url === request.pinned.url && request.failure === 'sha256')
          throw new Error(`${url}: sha256 mismatch`);
        if (url === request.pinned.url && typeof request.failure === 'number') {
          throw new archiveModule.HttpStatusError(url, request.failure);
        }
        return `${cacheDir}/${url.slice(url.lastIndexOf('/') + 1)}#${sha256}`;
      };
      const archive = () => {
        archiveCreated = true;
        return {
          replacement: async (locked, arch) => ({
            name: locked.name,
            version: '1.0-2',
            arch,
            url: locked.url.replace('1.0-1', '1.0-2'),
            sha256: 'b'.repeat(64),
            message: 'replacement message',
          }),
        };
      };
      const lock = { debian: { packages: { amd64: [request.pinned] } } };
      const debs = createLockedDebs({
        cacheDir: '/cache',
        lock,
        archive,
        download,
        warn: (m) => warnings.push(m),
      });
      try {
        const file = (await debs.file('amd64', 'libc6')).replace(/#.*$/, '');
        return { ok: { file, used: debs.used('amd64', ['libc6']), archiveCreated }, warnings };
      } catch (error) {
        return { error: { name: error.constructor.name, message: error.message }, warnings };
      }
    }
    case 'replacement':
    case 'resolve':
    case 'live': {
      const cacheDir = mkdtempSync(join(tmpdir(), 'kdp-deb-'));
      const warnings = [];
      const fake = request.op === 'live' ? undefined : fakeArchive(request);
      try {
        const archive = archiveModule.createDebianArchive({
          cacheDir: request.op === 'live' ? request.cacheDir : cacheDir,
          ...(fake ? { fetch: fake.fetch, keyring: join(cacheDir, 'no-keyring.gpg') } : {}),
          warn: (message) => warnings.push(message),
        });
        let result;
        try {
          if (request.op === 'replacement')
            result = { ok: await archive.replacement(request.locked, request.arch) };
          else if (request.op === 'resolve')
            result = { ok: await archive.resolve(request.name, request.arch) };
          else {
            const found = {};
            for (const arch of request.arches) {
              for (const name of request.names)
                found[`${name}:${arch}`] = await archive.candidates(name, arch);
            }
            result = { ok: found };
          }
        } catch (error) {
          result = { error: { name: error.constructor.name, message: error.message } };
        }
        return { ...result, warnings, requests: fake?.requests ?? [] };
      } finally {
        rmSync(cacheDir, { recursive: true, force: true });
      }
    }
    default:
      throw new Error(`unknown op ${request.op}`);
  }
}

const answer = await main(JSON.parse(readFileSync(0, 'utf8')));
process.stdout.write(JSON.stringify(answer));
