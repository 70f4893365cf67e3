import { unlink } from 'node:fs/promises';
import { writeFileAtomic } from '@kdp/base';
import { join } from 'node:path';
import type { FeatureLabels } from './feature-labels';

/** Options of {@link createFeatureFile}. */
export interface FeatureFileOptions {
  /** NFD's `features.d` directory (`/etc/kubernetes/node-feature-discovery/features.d`); it must exist. */
  readonly dir: string;
  /** The file's name in it (`kdp-gpu`); not starting with a dot (NFD ignores dot files). */
  readonly name: string;
  /** A comment line written first (who writes the file). */
  readonly comment?: string;
}

/** One Node Feature Discovery local feature file, owned by one writer. */
export interface FeatureFile {
  /** The file's path. */
  readonly path: string;
  /**
   * Writes the labels (sorted `name=value` lines) through a dot-file in the same directory and a rename, mode
   * 0644, unless they are what was last written; no labels removes the file. Resolves true when the file changed.
   * The labels must be valid (see `checkFeatureLabels`).
   */
  write(labels: FeatureLabels): Promise<boolean>;
  /** Removes the file (and a temporary file a failed write left); absent files are fine. */
  remove(): Promise<void>;
}

/** nfd-worker ignores a feature file larger than this. */
export const FEATURE_FILE_MAX_BYTES = 64 * 1024;

/** The text of a feature file: the comment, then one `name=value` line per label in name order. */
export function formatFeatureFile(labels: FeatureLabels, comment?: string): string {
  const lines = Object.keys(labels)
    .sort()
    .map((name) => `${name}=${labels[name] ?? ''}`);
  return [...(comment !== undefined ? [`# ${comment.replace(/\n/g, ' ')}`] : []), ...lines, ''].join('\n');
}

const unlinkIfPresent = async (path: string): Promise<void> => {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
};

/**
 * Creates the writer of one NFD local feature file (`features.d/<name>`): nfd-worker reads every file there at
 * each pass and turns its `name=value` lines into node labels, so a plugin labels its node without API access.
 */
export function createFeatureFile(options: FeatureFileOptions): FeatureFile {
  if (options.name === '' || options.name.startsWith('.') || options.name.includes('/'))
    throw new Error(
      `feature file name ${JSON.stringify(options.name)} must be a plain name not starting with a dot`,
    );
  const path = join(options.dir, options.name);
  /** What the file holds now as far as this writer knows ('' = no file); undefined = unknown. */
  let written: string | undefined;
  return {
    path,
    async write(labels) {
      const text = Object.keys(labels).length === 0 ? '' : formatFeatureFile(labels, options.comment);
      if (text === written) return false;
      const bytes = Buffer.byteLength(text);
      if (bytes > FEATURE_FILE_MAX_BYTES)
        throw new Error(
          `${path}: ${bytes} bytes of labels, over the ${FEATURE_FILE_MAX_BYTES} that NFD reads`,
        );
      written = undefined;
      if (text === '') {
        await unlinkIfPresent(path);
      } else {
        await writeFileAtomic(path, text, { mode: 0o644 });
      }
      written = text;
      return true;
    },
    async remove() {
      written = undefined;
      await unlinkIfPresent(path);
    },
  };
}
