#!/usr/bin/env node
// Regenerates the golden wire files of @kdp/api with an encoder independent of ours: protoc (Debian's
// protobuf-compiler) reads each text-format message `<package>.<Message>.txtpb` in
// packages/api/testdata/golden and writes `<package>.<Message>.bin` beside it.
// Usage: node tools/proto/golden.mjs [--check] [NAME...]
//   --check compares instead of writing and exits 1 on a difference; NAMEs (e.g. v1beta1.Device) limit
//   the run to those files.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const goldenDir = join(root, 'packages/api/testdata/golden');
/** Which proto file defines each proto package. */
export const protoFileOfPackage = {
  v1beta1: 'deviceplugin/v1beta1/api.proto',
  deviceplugin: 'deviceplugin/v1alpha/api.proto',
  v1: 'podresources/v1/api.proto',
  pluginregistration: 'pluginregistration/v1/api.proto',
};

/** Encodes one text-format file with protoc and returns the bytes. */
export function protocEncode(txtpbPath) {
  const [pkg, message] = txtpbPath
    .split('/')
    .pop()
    .replace(/\.txtpb$/, '')
    .split('.');
  const protoFile = protoFileOfPackage[pkg];
  if (protoFile === undefined) throw new Error(`${txtpbPath}: unknown proto package "${pkg}"`);
  try {
    return execFileSync('protoc', [`--encode=${pkg}.${message}`, '-I', join(root, 'proto'), protoFile], {
      input: readFileSync(txtpbPath),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (err) {
    if (err.code === 'ENOENT') {
      throw new Error('protoc not found: install it with `apt-get install -y protobuf-compiler`');
    }
    throw new Error(`protoc --encode=${pkg}.${message} failed: ${err.stderr?.toString() ?? err.message}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    options: { check: { type: 'boolean', default: false } },
    allowPositionals: true,
  });
  const names =
    positionals.length > 0
      ? positionals.map((p) => `${p}.txtpb`)
      : readdirSync(goldenDir)
          .filter((f) => f.endsWith('.txtpb'))
          .sort();
  let differences = 0;
  for (const name of names) {
    const bytes = protocEncode(join(goldenDir, name));
    const binPath = join(goldenDir, name.replace(/\.txtpb$/, '.bin'));
    if (values.check) {
      let current;
      try {
        current = readFileSync(binPath);
      } catch {
        current = undefined;
      }
      if (current === undefined || !current.equals(bytes)) {
        console.error(`differs: ${binPath}`);
        differences++;
      }
    } else {
      writeFileSync(binPath, bytes);
      console.log(`${binPath} (${bytes.length} bytes)`);
    }
  }
  if (differences > 0) process.exit(1);
}
