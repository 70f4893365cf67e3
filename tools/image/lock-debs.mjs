#!/usr/bin/env node
// Refreshes the Debian part of tools/image/image-lock.json: the exact versions, URLs and sha256 of the
// packages the image's shared libraries come from, for every image architecture, resolved to the newest
// version across bookworm, bookworm-updates and bookworm-security from the archive's signed indexes
// (lib/debian-archive.mjs: gpgv-checked InRelease, sha256-checked Packages.xz). Needs no apt and runs on
// any host with Node, xz and (for the signature check) gpgv and the Debian archive keyring.
//   node tools/image/lock-debs.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createDebianArchive } from './lib/debian-archive.mjs';

const lockFile = join(import.meta.dirname, 'image-lock.json');
const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
const names = ['libc6', 'libgcc-s1', 'libstdc++6', 'libudev1'];
const archive = createDebianArchive({ cacheDir: resolve(import.meta.dirname, '../../dist/image-cache') });

try {
  for (const arch of Object.keys(lock.node.packages)) {
    const before = new Map((lock.debian.packages[arch] ?? []).map((entry) => [entry.name, entry.version]));
    const entries = [];
    for (const name of [...names].sort()) {
      const { version, url, sha256, suite } = await archive.resolve(name, arch);
      const was = before.get(name);
      console.log(
        `${name}:${arch} ${version} (${suite})${was === version ? '' : ` was ${was ?? 'not locked'}`}`,
      );
      entries.push({ name, version, url, sha256 });
    }
    lock.debian.packages[arch] = entries;
  }
} catch (error) {
  console.error(`lock-debs: ${error.message}`);
  process.exit(1);
}
writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`updated ${lockFile}`);
