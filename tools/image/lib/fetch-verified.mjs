// Downloads into the image cache, verified against pinned digests: npm tarballs by their SRI integrity
// (sha512, from tools/image/image-lock.json or package-lock.json), Debian packages by their sha256.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpStatusError } from './debian-archive.mjs';
import { run } from './run-tool.mjs';

/** Throws unless `data` matches the SRI string `integrity` (e.g. `sha512-…`). */
export function checkIntegrity(data, integrity, what) {
  const dash = integrity.indexOf('-');
  const algorithm = integrity.slice(0, dash);
  const expected = integrity.slice(dash + 1);
  const actual = createHash(algorithm).update(data).digest('base64');
  if (actual !== expected) {
    throw new Error(`${what}: integrity mismatch: expected ${integrity}, got ${algorithm}-${actual}`);
  }
}

/** Throws unless `data` has the hex sha256 `sha256`. */
export function checkSha256(data, sha256, what) {
  const actual = createHash('sha256').update(data).digest('hex');
  if (actual !== sha256) throw new Error(`${what}: sha256 mismatch: expected ${sha256}, got ${actual}`);
}

/**
 * Returns the path of `name@version`'s npm tarball in `cacheDir`, fetched with `npm pack` (so npm's own
 * registry and proxy settings apply) and checked against `integrity` every time it is used.
 */
export async function npmTarball(cacheDir, name, version, integrity) {
  const dir = join(cacheDir, 'npm');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);
  if (!existsSync(file)) {
    const tmp = join(dir, `tmp-${process.pid}`);
    mkdirSync(tmp, { recursive: true });
    const { stdout } = await run('npm', [
      'pack',
      `${name}@${version}`,
      '--pack-destination',
      tmp,
      '--silent',
    ]);
    const packed = stdout.trim().split('\n').pop();
    if (!packed) throw new Error(`npm pack ${name}@${version} printed no file name`);
    try {
      checkIntegrity(readFileSync(join(tmp, packed)), integrity, `${name}@${version}`);
      renameSync(join(tmp, packed), file);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  checkIntegrity(readFileSync(file), integrity, `${name}@${version}`);
  return file;
}

/** Returns the path of a Debian package in `cacheDir`, fetched from `url` and checked against `sha256`. */
export async function debianPackage(cacheDir, url, sha256) {
  const dir = join(cacheDir, 'deb');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, decodeURIComponent(url.slice(url.lastIndexOf('/') + 1)));
  if (!existsSync(file)) {
    const response = await fetch(url);
    // A 404 is the archive having dropped a superseded version: lib/locked-debs.mjs falls back on it.
    if (!response.ok) throw new HttpStatusError(url, response.status);
    const data = Buffer.from(await response.arrayBuffer());
    checkSha256(data, sha256, url);
    writeFileSync(`${file}.tmp`, data);
    renameSync(`${file}.tmp`, file);
  }
  checkSha256(readFileSync(file), sha256, url);
  return file;
}
