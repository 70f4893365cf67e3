#!/usr/bin/env node
// Regenerates the golden wire files of @kdp/api with an encoder independent of ours: protoc (Debian's
// protobuf-compiler) reads each text-format message `<prefix>.<Message>.txtpb` in
// packages/api/testdata/golden (the prefix names the proto file: see protoOfPrefix) and writes
// `<prefix>.<Message>.bin` beside it.
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
/**
 * The golden file prefixes: `<prefix>.<Message>.txtpb` names a message of this proto file and package. The
 * prefix is the proto package where that is unambiguous; the DRA APIs, whose packages are long (`dra`) or clash
 * with podresources' `v1` (`dra-health`), use their directory instead.
 */
export const protoOfPrefix = {
  v1beta1: { file: 'deviceplugin/v1beta1/api.proto', pkg: 'v1beta1' },
  deviceplugin: { file: 'deviceplugin/v1alpha/api.proto', pkg: 'deviceplugin' },
  v1: { file: 'podresources/v1/api.proto', pkg: 'v1' },
  pluginregistration: { file: 'pluginregistration/v1/api.proto', pkg: 'pluginregistration' },
  'dra.v1': { file: 'dra/v1/api.proto', pkg: 'k8s.io.kubelet.pkg.apis.dra.v1' },
  'dra.v1beta1': { file: 'dra/v1beta1/api.proto', pkg: 'k8s.io.kubelet.pkg.apis.dra.v1beta1' },
  'dra-health.v1alpha1': { file: 'dra-health/v1alpha1/api.proto', pkg: 'v1alpha1' },
  'dra-health.v1': { file: 'dra-health/v1/api.proto', pkg: 'v1' },
};

/** Encodes one text-format file with protoc and returns the bytes. */
export function protocEncode(txtpbPath) {
  const base = txtpbPath
    .split('/')
    .pop()
    .replace(/\.txtpb$/, '');
  const dot = base.lastIndexOf('.');
  const [prefix, message] = [base.slice(0, dot), base.slice(dot + 1)];
  const proto = protoOfPrefix[prefix];
  if (proto === undefined) throw new Error(`${txtpbPath}: unknown golden prefix "${prefix}"`);
  const type = `${proto.pkg}.${message}`;
  try {
    return execFileSync('protoc', [`--encode=${type}`, '-I', join(root, 'proto'), proto.file], {
      input: readFileSync(txtpbPath),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (err) {
    if (err.code === 'ENOENT') {
      throw new Error('protoc not found: install it with `apt-get install -y protobuf-compiler`');
    }
    throw new Error(`protoc --encode=${type} failed: ${err.stderr?.toString() ?? err.message}`);
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
