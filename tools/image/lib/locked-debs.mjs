// The image's Debian packages as image-lock.json pins them, with a fallback for the day the archive drops
// a pinned version: only when a pinned URL answers 404 does the build ask the Debian archive (signed
// indexes, lib/debian-archive.mjs) for the same file elsewhere or the newest version, and it warns and
// records what it used. A sha256 mismatch is never a reason to fall back.
import { createDebianArchive, HttpStatusError } from './debian-archive.mjs';
import { debianPackage } from './fetch-verified.mjs';

/**
 * Pinned Debian packages for one build: `file(arch, name)` gives a verified .deb's path, `used(arch, names)`
 * what was actually used (`{ name, version, url, sha256 }`, plus `locked: { version, url }`, the pin, when
 * a fallback replaced it). `archive` is created on the first 404 only, so a build whose pins all resolve
 * never reads the Debian indexes.
 */
export function createLockedDebs({
  cacheDir,
  lock,
  archive = () => createDebianArchive({ cacheDir }),
  warn = (message) => console.warn(`warning: ${message}`),
  download = debianPackage,
}) {
  const files = new Map();
  const used = new Map();
  let client;

  async function fetchOne(arch, name) {
    const locked = (lock.debian.packages[arch] ?? []).find((entry) => entry.name === name);
    if (!locked) throw new Error(`tools/image/image-lock.json has no Debian package ${name} for ${arch}`);
    try {
      const file = await download(cacheDir, locked.url, locked.sha256);
      used.set(`${arch}/${name}`, { name, version: locked.version, url: locked.url, sha256: locked.sha256 });
      return file;
    } catch (error) {
      if (!(error instanceof HttpStatusError && error.status === 404)) throw error;
    }
    client ??= archive();
    const replacement = await client.replacement(locked, arch);
    warn(replacement.message);
    const file = await download(cacheDir, replacement.url, replacement.sha256);
    used.set(`${arch}/${name}`, {
      name,
      version: replacement.version,
      url: replacement.url,
      sha256: replacement.sha256,
      locked: { version: locked.version, url: locked.url },
    });
    return file;
  }

  return {
    cacheDir,
    /** The Debian suite the lock pins (its codename, e.g. bookworm). */
    suite: lock.debian.suite,
    /** The path of `name`'s verified .deb for `arch` in the cache (fetched once per build). */
    file(arch, name) {
      const key = `${arch}/${name}`;
      if (!files.has(key)) files.set(key, fetchOne(arch, name));
      return files.get(key);
    },
    /** What was used for `names` on `arch`, in that order (only packages already fetched). */
    used(arch, names) {
      return names.map((name) => used.get(`${arch}/${name}`)).filter((entry) => entry !== undefined);
    },
  };
}
