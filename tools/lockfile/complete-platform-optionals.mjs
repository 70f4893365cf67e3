#!/usr/bin/env node
// Completes package-lock.json with the platform-specific optional dependencies that `npm install` could
// not record. The npm registry reachable from our build machines serves only the linux packages of
// projects that ship native binaries per platform (@bufbuild/buf-*, @unrs/resolver-binding-*, …), so npm
// leaves the darwin/win32/… ones out of the lockfile, and `npm ci` then rejects the lockfile as out of
// sync. Each missing package is added as an os/cpu-tagged optional entry, which npm skips on every other
// platform (exactly as it skips a complete entry); on a matching platform npm fetches it by name and
// version. Run after every `npm install` that changes the lockfile:
//   node tools/lockfile/complete-platform-optionals.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const lockPath = join(root, 'package-lock.json');
const check = process.argv.includes('--check');

const osNames = [
  'darwin',
  'linux',
  'win32',
  'freebsd',
  'openbsd',
  'netbsd',
  'sunos',
  'aix',
  'android',
  'openharmony',
];
const cpuNames = [
  'x64',
  'arm64',
  'arm',
  'ia32',
  'loong64',
  'ppc64',
  'riscv64',
  's390x',
  'mips64el',
  'wasm32',
];
const cpuAliases = { armv7: 'arm', aarch64: 'arm64', amd64: 'x64', x86_64: 'x64', i386: 'ia32' };

/** Reads the os, cpu and libc a platform package targets from its name, e.g. `…-linux-arm64-musl`. */
function platformOf(name) {
  const tokens = name.split('/').pop().split('-');
  const os = tokens.find((t) => osNames.includes(t));
  const cpuToken = tokens.find((t) => cpuNames.includes(t) || t in cpuAliases || /^arm(v\d+)?$/.test(t));
  const cpu =
    cpuToken === undefined
      ? undefined
      : (cpuAliases[cpuToken] ?? (cpuToken.startsWith('arm') && cpuToken !== 'arm64' ? 'arm' : cpuToken));
  const libc =
    tokens.includes('musl') || tokens.includes('musleabihf')
      ? 'musl'
      : tokens.includes('gnu') || tokens.includes('gnueabihf')
        ? 'glibc'
        : undefined;
  return { os, cpu, libc };
}

const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const added = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    const candidates = [`${base}node_modules/${dep}`, `node_modules/${dep}`];
    if (candidates.some((p) => p in lock.packages)) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (os === undefined || cpu === undefined) {
      console.error(
        `${dep}@${version} (optional dependency of ${path || 'the root'}) is missing and names no platform`,
      );
      process.exitCode = 1;
      continue;
    }
    // Keys in the order npm itself writes them, so a later `npm install` does not reorder the entry.
    const stub = { version, cpu: [cpu] };
    if (entry.dev !== undefined) stub.dev = entry.dev;
    if (libc !== undefined) stub.libc = [libc];
    stub.optional = true;
    stub.os = [os];
    lock.packages[`node_modules/${dep}`] = stub;
    added.push(`${dep}@${version} (${os}/${cpu}${libc ? `/${libc}` : ''})`);
  }
}

if (added.length > 0) {
  lock.packages = Object.fromEntries(
    Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
  );
  if (check) {
    console.error(
      `package-lock.json lacks ${added.length} platform optional dependencies; run node tools/lockfile/complete-platform-optionals.mjs`,
    );
    process.exit(1);
  }
  writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  for (const line of added) console.log(`added ${line}`);
}
