#!/usr/bin/env node
// Refreshes the Debian part of tools/image/image-lock.json: the exact versions, URLs and sha256 of the
// packages the runtime layer takes its shared libraries from, for every image architecture.
// Needs a Debian machine with both architectures known to apt:
//   dpkg --add-architecture arm64 && apt-get update && node tools/image/lock-debs.mjs
// The image build itself never calls apt: it fetches these URLs and checks the sha256.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './lib/run-tool.mjs';

const lockFile = join(import.meta.dirname, 'image-lock.json');
const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
const names = ['libc6', 'libgcc-s1', 'libstdc++6', 'libudev1'];

for (const arch of Object.keys(lock.node.packages)) {
  const { stdout } = await run('apt-get', ['download', '--print-uris', ...names.map((n) => `${n}:${arch}`)]);
  const entries = stdout
    .trim()
    .split('\n')
    .map((line) => {
      const match = /^'([^']+)' (\S+)_(\S+)_(\S+)\.deb \d+ SHA256:([0-9a-f]{64})$/.exec(line);
      if (!match) throw new Error(`unexpected apt-get output: ${line}`);
      const [, url, name, version, , sha256] = match;
      return { name, version: decodeURIComponent(version), url, sha256 };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  lock.debian.packages[arch] = entries;
}
writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`updated ${lockFile}`);
