#!/usr/bin/env node
// Builds one OCI image per plugin, daemonless: deterministic layer tars written here, assembled with umoci,
// converted (oci-archive) and optionally pushed with skopeo. Same inputs give the same digests. Each platform
// image gets a CycloneDX SBOM, written beside image.json and attached to the image as an OCI artifact.
//
//   node tools/image/build-images.mjs [gpu sriov infiniband usb fpga device-plugins monitor] [--arch amd64,arm64]
//                                     [--push docker://REGISTRY/PREFIX [--tag TAG]] [--out dist/images]
//
// --push sends the amd64+arm64 index to PREFIX/<binary>:TAG (TAG defaults to the plugin's package version; CI
// pushes main's commits under the commit SHA so that a release tag is never overwritten).
//
// Exit codes: 0 built, 2 usage error or a missing tool (named with its apt package), 1 anything else.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { appLayer } from './lib/app-layer.mjs';
import { materialize } from './lib/code-cache.mjs';
import { createLockedDebs } from './lib/locked-debs.mjs';
import { addArchImage, addImageIndex, addReferrer } from './lib/oci-image.mjs';
import { allArches, platforms } from './lib/platforms.mjs';
import { plugins } from './lib/plugins.mjs';
import { MissingToolError, requireTools, run } from './lib/run-tool.mjs';
import { runtimeLayer, runtimePackages } from './lib/runtime-layer.mjs';
import { createSbom, debComponent, sbomMediaType, sha256 } from './lib/sbom.mjs';
import { createTar } from './lib/tar-writer.mjs';

const root = resolve(import.meta.dirname, '../..');
const usage = `usage: build-images [${Object.keys(plugins).join(' ')}] [--arch ${allArches.join(',')}] [--push docker://REGISTRY/PREFIX [--tag TAG]] [--out DIR]`;

class UsageError extends Error {}

function git(args, fallback) {
  try {
    return execFileSync('git', args, {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return fallback;
  }
}

/** The image's `created` time: SOURCE_DATE_EPOCH when set, else the HEAD commit's time (never "now"). */
function createdTime() {
  const epoch = process.env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && /^\d+$/.test(epoch)) return new Date(Number(epoch) * 1000).toISOString();
  const seconds = git(['log', '-1', '--format=%ct'], '0');
  return new Date(Number(seconds) * 1000).toISOString();
}

function sourceUrl(rootPackage) {
  const repository = rootPackage.repository;
  const url = typeof repository === 'string' ? repository : repository?.url;
  return (
    process.env.KDP_IMAGE_SOURCE ??
    url?.replace(/^git\+/, '').replace(/\.git$/, '') ??
    'https://github.com/kdp/kdp'
  );
}

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        arch: { type: 'string', default: allArches.join(',') },
        push: { type: 'string' },
        tag: { type: 'string' },
        out: { type: 'string', default: join(root, 'dist/images') },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error.message);
  }
  const { values, positionals } = parsed;
  const names = positionals.length > 0 ? positionals : Object.keys(plugins);
  for (const name of names) if (!plugins[name]) throw new UsageError(`unknown plugin ${name}`);
  const arches = values.arch.split(',').filter(Boolean);
  for (const arch of arches) if (!allArches.includes(arch)) throw new UsageError(`unknown arch ${arch}`);
  if (arches.length === 0) throw new UsageError('--arch names no architecture');
  if (values.push !== undefined && !values.push.startsWith('docker://')) {
    throw new UsageError('--push takes a docker://REGISTRY/PREFIX reference');
  }
  if (values.tag !== undefined) {
    if (values.push === undefined) throw new UsageError('--tag only names the tag --push pushes');
    // The OCI distribution spec's tag grammar.
    if (!/^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/.test(values.tag)) {
      throw new UsageError(`--tag ${JSON.stringify(values.tag)} is not a valid image tag`);
    }
  }
  // A registry host may carry a port (docker://localhost:5000); below it, a ':' or '@' would be a tag or digest.
  const pushPath = values.push?.slice('docker://'.length).split('/').slice(1) ?? [];
  if (pushPath.some((part) => part.includes(':') || part.includes('@'))) {
    throw new UsageError(`--push ${values.push}: give the repository prefix only; the tag comes from --tag`);
  }
  return { help: values.help, names, arches, push: values.push, tag: values.tag, out: resolve(values.out) };
}

function mb(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** The SBOM's view of a layer's entries: every regular file with its sha256, layer and origin component. */
function sbomFiles(entries, layer) {
  return entries
    .filter((entry) => entry.type === 'file')
    .map((entry) => ({
      path: entry.path,
      sha256: sha256(entry.data),
      layer,
      origin: entry.origin,
      pedigree: entry.pedigree,
    }));
}

/** Components by bom-ref; a package both bundled and copied as files is one component with both facts. */
function uniqueComponents(components) {
  const byRef = new Map();
  for (const component of components) {
    const ref = component['bom-ref'];
    byRef.set(ref, { ...byRef.get(ref), ...component });
  }
  return [...byRef.values()];
}

/** One platform image's SBOM (see lib/sbom.mjs) from its layers' entries and components. */
function imageSbom({ plugin, version, arch, image, runtime, app, debs, labels, context }) {
  const debComponents = debs.map((used) => debComponent(used, arch, context.debs.suite));
  const ref = (component) => component['bom-ref'];
  return createSbom({
    image: {
      name: plugin.binary,
      version,
      arch,
      digest: image.digest,
      source: context.source,
      revision: context.revision,
      created: context.created,
      license: labels['org.opencontainers.image.licenses'],
    },
    components: uniqueComponents([runtime.node, ...debComponents, app.app, ...app.bundled, ...app.addons]),
    files: [...runtime.files, ...sbomFiles(app.entries, 'app')],
    dependencies: new Map([
      ['image', [app.app, runtime.node, ...debComponents, ...app.addons].map(ref)],
      [ref(app.app), [...app.bundled, ...app.addons].map(ref)],
    ]),
  });
}

async function buildOne(name, context) {
  const plugin = plugins[name];
  const projectDir = `packages/${plugin.project.slice('@kdp/'.length)}`;
  const dir = join(root, projectDir);
  const bundle = join(dir, 'dist/main.js');
  if (!existsSync(bundle))
    throw new Error(`${bundle} is missing: run npx nx run ${plugin.project}:build first`);
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  const outDir = join(context.out, name);
  const layout = join(outDir, 'oci');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await run('umoci', ['init', '--layout', layout]);
  const labels = {
    'org.opencontainers.image.title': plugin.binary,
    'org.opencontainers.image.source': context.source,
    'org.opencontainers.image.version': version,
    'org.opencontainers.image.revision': context.revision,
    'org.opencontainers.image.licenses': 'Apache-2.0',
  };
  const images = [];
  const referrers = [];
  for (const arch of context.arches) {
    const runtime = await context.runtime(arch);
    const app = await appLayer({
      ...context,
      root,
      plugin,
      projectDir,
      arch,
      bundle,
      runtimeRoot: runtime.root,
    });
    if (!app.codeCache)
      console.warn(
        `warning: no ${platforms[arch].qemu} for ${arch}; ${name} ships without its code cache (slower start)`,
      );
    const image = await addArchImage({
      layout,
      tag: `${version}-${arch}`,
      arch,
      cmd: plugin.cmd ?? ['serve'],
      created: context.created,
      labels,
      cacheDir: context.cacheDir,
      layers: [
        { name: 'runtime', tar: runtime.tar },
        { name: 'app', tar: createTar(app.entries) },
      ],
    });
    // The Debian packages actually used (a fallback records the pin it replaced as `locked`).
    const debs = context.debs.used(arch, [...runtimePackages, ...plugin.libraries.map((l) => l.package)]);
    const sbom = imageSbom({ plugin, version, arch, image, runtime, app, debs, labels, context });
    const sbomFile = `${plugin.binary}-${version}-${arch}.cdx.json`;
    writeFileSync(join(outDir, sbomFile), sbom);
    const referrer = addReferrer({
      layout,
      subject: image,
      document: sbom,
      mediaType: sbomMediaType,
      title: sbomFile,
      created: context.created,
    });
    referrers.push(referrer);
    images.push({
      ...image,
      strip: runtime.strip,
      debs,
      sbom: { file: sbomFile, digest: referrer.document, manifest: referrer.digest },
    });
  }
  const indexDigest = await addImageIndex({
    layout,
    tag: version,
    images,
    referrers,
    annotations: labels,
  });
  const archive = join(outDir, `${plugin.binary}-${version}.oci.tar`);
  await run('skopeo', [
    'copy',
    '--quiet',
    '--all',
    `oci:${layout}:${version}`,
    `oci-archive:${archive}:${version}`,
  ]);
  if (context.push) {
    const target = `${context.push.replace(/\/$/, '')}/${plugin.binary}:${context.tag ?? version}`;
    await run('skopeo', ['copy', '--all', '--retry-times', '3', `oci:${layout}:${version}`, target]);
    console.log(`pushed ${target}`);
  }
  const summary = {
    plugin: name,
    binary: plugin.binary,
    version,
    index: indexDigest,
    layout,
    archive,
    images,
  };
  writeFileSync(join(outDir, 'image.json'), `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}

async function main(argv) {
  const options = parse(argv);
  if (options.help) {
    console.log(usage);
    return 0;
  }
  await requireTools(['umoci', 'skopeo', 'tar', 'dpkg-deb']);
  const lock = JSON.parse(readFileSync(join(import.meta.dirname, 'image-lock.json'), 'utf8'));
  const packageLock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const cacheDir = join(root, 'dist/image-cache');
  const runtimes = new Map();
  const roots = [];
  const debs = createLockedDebs({ cacheDir, lock });
  const context = {
    debs,
    ...options,
    lock,
    packageLock,
    cacheDir,
    created: createdTime(),
    revision: git(['rev-parse', 'HEAD'], 'unknown'),
    source: sourceUrl(rootPackage),
    // The runtime layer is the same for every plugin: build its tar once per architecture, and unpack it once
    // (`root`) for its Node to make the bundles' code caches.
    runtime: async (arch) => {
      if (!runtimes.has(arch)) {
        const { entries, strip, node } = await runtimeLayer(cacheDir, lock, debs, arch);
        if (!strip) console.warn(`warning: no strip tool for ${arch}; Node ships unstripped (larger image)`);
        const root = mkdtempSync(join(tmpdir(), `kdp-runtime-${arch}-`));
        roots.push(root);
        materialize(entries, root);
        runtimes.set(arch, {
          tar: createTar(entries),
          strip,
          node,
          files: sbomFiles(entries, 'runtime'),
          root,
        });
      }
      return runtimes.get(arch);
    },
  };
  const rows = [['plugin', 'arch', 'compressed', 'digest']];
  try {
    for (const name of options.names) {
      const summary = await buildOne(name, context);
      for (const image of summary.images) rows.push([name, image.arch, mb(image.compressed), image.digest]);
      rows.push([name, 'index', '', summary.index]);
    }
  } finally {
    for (const dir of roots) rmSync(dir, { recursive: true, force: true });
  }
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  for (const row of rows)
    console.log(
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) console.error(`build-images: ${error.message}\n${usage}`);
    else console.error(`build-images: ${error.message}`);
    process.exit(error instanceof UsageError || error instanceof MissingToolError ? 2 : 1);
  },
);
