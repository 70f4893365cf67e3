// Assembles one plugin's OCI image layout with umoci: per architecture an image (config, runtime layer,
// app layer) from deterministic layer tars, then a multi-arch image index over both manifests.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './run-tool.mjs';

/** Reads a JSON blob of the layout by digest. */
export function readBlob(layout, digest) {
  return JSON.parse(readFileSync(join(layout, 'blobs', digest.replace(':', '/')), 'utf8'));
}

/** Adds one per-architecture image to `layout`, tagged `tag`; returns its manifest descriptor and sizes. */
export async function addArchImage({ layout, tag, arch, created, labels, layers, workDir }) {
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
    'PATH=/nodejs/bin',
    '--config.env',
    'NODE_ENV=production',
    '--config.entrypoint',
    '/nodejs/bin/node',
    '--config.entrypoint',
    '/app/main.js',
    '--config.cmd',
    'serve',
    ...Object.entries(labels).flatMap(([key, value]) => ['--config.label', `${key}=${value}`]),
  ]);
  for (const layer of layers) {
    const file = join(workDir, `${tag}-${layer.name}.tar`);
    writeFileSync(file, layer.tar);
    await run('umoci', [
      'raw',
      'add-layer',
      '--image',
      image,
      '--history.created',
      created,
      '--history.created_by',
      `kdp tools/image: ${layer.name} layer`,
      file,
    ]);
    rmSync(file);
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

/**
 * Writes an OCI image index over `images` (one per architecture) into `layout`, and makes the layout's
 * index.json list it as `tag` beside the per-architecture tags. Returns the index digest.
 */
export async function addImageIndex({ layout, tag, images, annotations }) {
  const imageIndex = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: images.map((image) => ({
      mediaType: image.mediaType,
      digest: image.digest,
      size: image.size,
      platform: { architecture: image.arch, os: 'linux' },
    })),
    annotations,
  };
  const bytes = Buffer.from(JSON.stringify(imageIndex));
  const hex = createHash('sha256').update(bytes).digest('hex');
  mkdirSync(join(layout, 'blobs', 'sha256'), { recursive: true });
  writeFileSync(join(layout, 'blobs', 'sha256', hex), bytes);
  const indexFile = join(layout, 'index.json');
  const layoutIndex = JSON.parse(readFileSync(indexFile, 'utf8'));
  layoutIndex.manifests.push({
    mediaType: imageIndex.mediaType,
    digest: `sha256:${hex}`,
    size: bytes.length,
    annotations: { 'org.opencontainers.image.ref.name': tag },
  });
  layoutIndex.manifests.sort((a, b) =>
    a.annotations['org.opencontainers.image.ref.name'].localeCompare(
      b.annotations['org.opencontainers.image.ref.name'],
    ),
  );
  writeFileSync(indexFile, JSON.stringify(layoutIndex));
  await run('umoci', ['gc', '--layout', layout]);
  return `sha256:${hex}`;
}
