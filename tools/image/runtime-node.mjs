#!/usr/bin/env node
// Prints the path of the Node binary the images run (image-lock.json's version, for this machine's architecture),
// fetched with `npm pack`, verified against the lock's integrity and unpacked into dist/image-cache on first use.
// `nx run @kdp/device-plugins:bench` starts the plugins with it, so that its figures are the images' own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { platforms } from './lib/platforms.mjs';
import { lockedNodeBinary } from './lib/runtime-layer.mjs';

const root = join(import.meta.dirname, '..', '..');
const arch = Object.keys(platforms).find((name) => platforms[name].npmArch === process.arch);
if (arch === undefined) {
  console.error(`runtime-node: the images have no Node for ${process.arch}`);
  process.exit(1);
}
const lock = JSON.parse(readFileSync(join(import.meta.dirname, 'image-lock.json'), 'utf8'));
try {
  console.log(await lockedNodeBinary(join(root, 'dist/image-cache'), lock, arch));
} catch (error) {
  console.error(`runtime-node: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
