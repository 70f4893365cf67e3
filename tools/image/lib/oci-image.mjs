// Assembles one plugin's OCI image layout with umoci: per architecture an image (config, runtime layer,
// app layer) from deterministic layer tars and its SBOM as an OCI artifact whose subject is that image, then
// a multi-arch image index over both manifests and both SBOM artifacts.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { run } from './run-tool.mjs';
import { nodeRuntimeEnv } from './node-runtime.mjs';

/** Reads a JSON blob of the layout by digest. */
export function readBlob(layout, digest) {
  return JSON.parse(readFileSync(join(layout, 'blobs', digest.replace(':', '/')), 'utf8'));
}

/** Writes `bytes` as a blob of `layout` and returns its descriptor fields. */
function writeBlob(layout, bytes) {
  const hex = createHash('sha256').update(bytes).digest('hex');
  mkdirSync(join(layout, 'blobs', 'sha256'), { recursive: true });
  writeFileSync(join(layout, 'blobs', 'sha256', hex), bytes);
  return { digest: `sha256:${hex}`, size: bytes.length };
}

/** gzip level 9 of `tar`, kept in the cache by content: the runtime layer is the same for every plugin. */
function compressed(tar, diffId, cacheDir) {
  const file = join(cacheDir, 'layers', `${diffId}.gz`);
  if (existsSync(file)) return readFileSync(file);
  const gz = gzipSync(tar, { level: 9 });
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.${process.pid}`, gz);
  renameSync(`${file}.${process.pid}`, file);
  return gz;
}

/**
 * Appends one layer (an uncompressed tar) to the image tagged `tag`, as `umoci raw add-layer` does, but
 * compressed with gzip level 9 (umoci's parallel gzip costs about 4 MB more on the Node binary) and with
 * the history entry given. umoci gc removes the superseded manifest and config afterwards.
 */
function appendLayer(layout, tag, tar, history, cacheDir) {
  const indexFile = join(layout, 'index.json');
  const index = JSON.parse(readFileSync(indexFile, 'utf8'));
  const descriptor = index.manifests.find(
    (m) => m.annotations?.['org.opencontainers.image.ref.name'] === tag,
  );
  if (!descriptor) throw new Error(`no manifest tagged ${tag} in ${layout}`);
  const manifest = readBlob(layout, descriptor.digest);
  const config = readBlob(layout, manifest.config.digest);
  const diffId = createHash('sha256').update(tar).digest('hex');
  const layer = writeBlob(layout, compressed(tar, diffId, cacheDir));
  config.rootfs.diff_ids.push(`sha256:${diffId}`);
  config.history = [...(config.history ?? []), history];
  manifest.config = { ...manifest.config, ...writeBlob(layout, Buffer.from(JSON.stringify(config))) };
  manifest.layers = [
    ...(manifest.layers ?? []),
    { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...layer },
  ];
  Object.assign(descriptor, writeBlob(layout, Buffer.from(JSON.stringify(manifest))));
  writeFileSync(indexFile, JSON.stringify(index));
}

/** Adds one per-architecture image to `layout`, tagged `tag`; returns its manifest descriptor and sizes. */
export async function addArchImage({ layout, tag, arch, cmd, created, labels, layers, cacheDir }) {
  const image = `${layout}:${tag}`;
  await run('umoci', ['new', '--image', image]);
  await run('umoci', [
    'config',
    '--image',
    image,
    '--no-history',
    '--created',
    created,
    '--author',
    'kdp tools/image',
    '--os',
    'linux',
    '--architecture',
    arch,
    '--config.user',
    '0:0',
    '--config.workingdir',
    '/app',
    '--config.env',
    // The anchors' commands (`nvidia-device-plugin`, `config-manager`, …) are links in these directories.
    'PATH=/nodejs/bin:/usr/local/bin:/usr/bin:/bin',
    ...nodeRuntimeEnv().flatMap((line) => ['--config.env', line]),
    '--config.entrypoint',
    '/nodejs/bin/node',
    '--config.entrypoint',
    '/app/main.js',
    ...cmd.flatMap((arg) => ['--config.cmd', arg]),
    ...Object.entries(labels).flatMap(([key, value]) => ['--config.label', `${key}=${value}`]),
  ]);
  for (const layer of layers) {
    appendLayer(
      layout,
      tag,
      layer.tar,
      { created, created_by: `kdp tools/image: ${layer.name} layer` },
      cacheDir,
    );
  }
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8'));
  const descriptor = index.manifests.find(
    (m) => m.annotations?.['org.opencontainers.image.ref.name'] === tag,
  );
  if (!descriptor) throw new Error(`umoci left no manifest tagged ${tag} in ${layout}`);
  const manifest = readBlob(layout, descriptor.digest);
  const compressed =
    descriptor.size + manifest.config.size + manifest.layers.reduce((sum, layer) => sum + layer.size, 0);
  return {
    arch,
    digest: descriptor.digest,
    size: descriptor.size,
    mediaType: descriptor.mediaType,
    compressed,
  };
}

/** The OCI empty descriptor's content (`{}`), the config of an artifact that has none. */
const emptyJson = Buffer.from('{}');

/**
 * Writes `document` (a blob of media type `mediaType`, e.g. a CycloneDX SBOM) into `layout` as an OCI 1.1
 * artifact manifest (artifactType `mediaType`, empty config, one layer titled `title`) whose `subject` is
 * `subject`, an image manifest descriptor. Returns the artifact manifest's descriptor for the image index:
 * platform unknown/unknown, so that no runtime ever selects it, and no `artifactType` field on the descriptor
 * (skopeo 1.9 drops it when it copies an index, which would change the index digest).
 */
export function addReferrer({ layout, subject, document, mediaType, title, created }) {
  const blob = writeBlob(layout, document);
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    artifactType: mediaType,
    config: { mediaType: 'application/vnd.oci.empty.v1+json', ...writeBlob(layout, emptyJson) },
    layers: [{ mediaType, ...blob, annotations: { 'org.opencontainers.image.title': title } }],
    subject: { mediaType: subject.mediaType, digest: subject.digest, size: subject.size },
    annotations: { 'org.opencontainers.image.created': created },
  };
  const written = writeBlob(layout, Buffer.from(JSON.stringify(manifest)));
  return {
    mediaType: manifest.mediaType,
    ...written,
    platform: { architecture: 'unknown', os: 'unknown' },
    document: blob.digest,
  };
}

/**
 * Writes an OCI image index over `images` (one per architecture) and `referrers` (their SBOM artifacts, see
 * addReferrer) into `layout`, and makes the layout's index.json list it as `tag` beside the per-architecture
 * tags. Returns the index digest.
 */
export async function addImageIndex({ layout, tag, images, referrers = [], annotations }) {
  const imageIndex = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      ...images.map((image) => ({
        mediaType: image.mediaType,
        digest: image.digest,
        size: image.size,
        platform: { architecture: image.arch, os: 'linux' },
      })),
      ...referrers.map((referrer) => ({
        mediaType: referrer.mediaType,
        digest: referrer.digest,
        size: referrer.size,
        platform: referrer.platform,
      })),
    ],
    annotations,
  };
  const blob = writeBlob(layout, Buffer.from(JSON.stringify(imageIndex)));
  const indexFile = join(layout, 'index.json');
  const layoutIndex = JSON.parse(readFileSync(indexFile, 'utf8'));
  layoutIndex.manifests.push({
    mediaType: imageIndex.mediaType,
    ...blob,
    annotations: { 'org.opencontainers.image.ref.name': tag },
  });
  layoutIndex.manifests.sort((a, b) =>
    a.annotations['org.opencontainers.image.ref.name'].localeCompare(
      b.annotations['org.opencontainers.image.ref.name'],
    ),
  );
  writeFileSync(indexFile, JSON.stringify(layoutIndex));
  await run('umoci', ['gc', '--layout', layout]);
  return blob.digest;
}
