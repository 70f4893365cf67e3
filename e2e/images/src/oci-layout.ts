import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** An OCI descriptor as the image tests read it. */
export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly artifactType?: string;
  readonly platform?: { readonly architecture: string; readonly os: string };
  readonly annotations?: Readonly<Record<string, string>>;
}

/** An OCI image manifest, or an artifact manifest (artifactType, subject). */
export interface Manifest {
  readonly mediaType: string;
  readonly artifactType?: string;
  readonly config: Descriptor;
  readonly layers: readonly Descriptor[];
  readonly subject?: Descriptor;
}

/** An OCI image index (a layout's index.json or a multi-arch index blob). */
export interface ImageIndex {
  readonly manifests: readonly Descriptor[];
}

/** The path of blob `digest` in `layout`. */
export function blobPath(layout: string, digest: string): string {
  return join(layout, 'blobs', digest.replace(':', '/'));
}

/** Reads a JSON blob of `layout`. */
export function readJsonBlob<T>(layout: string, digest: string): T {
  return JSON.parse(readFileSync(blobPath(layout, digest), 'utf8')) as T;
}

/** The descriptor `layout`'s index.json tags `tag`. */
export function tagged(layout: string, tag: string): Descriptor {
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as ImageIndex;
  const found = index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === tag);
  if (!found) throw new Error(`${layout} has no tag ${tag}`);
  return found;
}

/** One layer of an image: its name (from the config's history, `kdp tools/image: <name> layer`) and files. */
export interface LayerFiles {
  readonly name: string;
  readonly digest: string;
  /** Every regular file of the layer (path without a leading slash) with its hex sha256. */
  readonly files: ReadonlyMap<string, string>;
}

/** Listings by extracted layer directory: the runtime layer is one blob in every image of an architecture. */
const listings = new Map<string, Map<string, string>>();

function regularFiles(root: string): Map<string, string> {
  const listed = listings.get(root);
  if (listed) return listed;
  const files = new Map<string, string>();
  listings.set(root, files);
  for (const path of readdirSync(root, { recursive: true, encoding: 'utf8' }).sort()) {
    if (!lstatSync(join(root, path)).isFile()) continue;
    files.set(
      path,
      createHash('sha256')
        .update(readFileSync(join(root, path)))
        .digest('hex'),
    );
  }
  return files;
}

/**
 * The layers of the image tagged `tag` in `layout`, each extracted with GNU tar (once per layer digest, into
 * `cacheDir`) and listed with its regular files' sha256.
 */
export async function imageLayers(layout: string, tag: string, cacheDir: string): Promise<LayerFiles[]> {
  const manifest = readJsonBlob<Manifest>(layout, tagged(layout, tag).digest);
  const config = readJsonBlob<{ history: Array<{ created_by: string }> }>(layout, manifest.config.digest);
  const layers: LayerFiles[] = [];
  for (const [index, layer] of manifest.layers.entries()) {
    const dir = join(cacheDir, layer.digest.replace(':', '-'));
    if (!existsSync(dir)) {
      rmSync(`${dir}.tmp`, { recursive: true, force: true });
      mkdirSync(`${dir}.tmp`, { recursive: true });
      await run('tar', ['-xzf', blobPath(layout, layer.digest), '-C', `${dir}.tmp`]);
      renameSync(`${dir}.tmp`, dir);
    }
    const name = /^kdp tools\/image: (\S+) layer$/.exec(config.history[index]?.created_by ?? '')?.[1];
    layers.push({ name: name ?? `layer ${index}`, digest: layer.digest, files: regularFiles(dir) });
  }
  return layers;
}
