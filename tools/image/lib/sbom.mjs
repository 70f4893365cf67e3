// The software bill of materials of one platform image, CycloneDX 1.6 JSON, from what the build already knows:
// Node's locked version and tarball integrity, each Debian package's version, URL and sha256, the npm packages
// inside the esbuild bundle and the native addons copied as files (versions, licenses and integrity from
// package-lock.json), the workspace's own packages, and every regular file of every layer with its sha256,
// nested under the component it came from. Deterministic: no clock, no random serial number, fixed order.
import { createHash } from 'node:crypto';

/** The OCI media type (and artifactType) of a CycloneDX JSON document. */
export const sbomMediaType = 'application/vnd.cyclonedx+json';

/** The CycloneDX version written. */
export const specVersion = '1.6';

const sriAlgorithms = { sha1: 'SHA-1', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };

/** A CycloneDX hash from an SRI integrity string (`sha512-<base64>`, as npm and image-lock.json write them). */
export function hashOfIntegrity(integrity) {
  const dash = integrity.indexOf('-');
  const alg = sriAlgorithms[integrity.slice(0, dash)];
  if (!alg) throw new Error(`unsupported integrity algorithm in ${integrity}`);
  return { alg, content: Buffer.from(integrity.slice(dash + 1), 'base64').toString('hex') };
}

/** The hex sha256 of `data`. */
export function sha256(data) {
  return createHash('sha256').update(data).digest('hex');
}

/** The package URL of an npm package (`pkg:npm/%40scope/name@version`). */
export function npmPurl(name, version) {
  return `pkg:npm/${name.replace(/^@/, '%40')}@${encodeURIComponent(version)}`;
}

/** The package URL of a Debian binary package of `arch` from `distro` (the suite's codename). */
export function debPurl(name, version, arch, distro) {
  return `pkg:deb/debian/${encodeURIComponent(name)}@${encodeURIComponent(version)}?arch=${arch}&distro=${distro}`;
}

/** CycloneDX `licenses` for a package.json `license` string: an SPDX expression where it is one, else a name. */
export function licensesOf(license) {
  if (typeof license !== 'string' || license.trim() === '') return undefined;
  const expression = /^\(?[A-Za-z0-9.+-]+(?:\)? (?:AND|OR|WITH) \(?[A-Za-z0-9.+-]+)*\)?$/.test(license);
  return expression ? [{ expression: license }] : [{ license: { name: license } }];
}

/** The component of the pinned Node binary (the `node-linux-<arch>` npm package of image-lock.json). */
export function nodeComponent(lock, arch, license) {
  const { name, integrity } = lock.node.packages[arch];
  const { version } = lock.node;
  const purl = npmPurl(name, version);
  return {
    type: 'application',
    'bom-ref': purl,
    name,
    version,
    description: `Node.js ${version}, the linux-${arch} binary as published on npm`,
    licenses: licensesOf(license),
    hashes: [hashOfIntegrity(integrity)],
    purl,
    cpe: `cpe:2.3:a:nodejs:node.js:${version}:*:*:*:*:*:*:*`,
  };
}

/** The component of one Debian package as the build used it (`locked-debs.mjs` `used()` entry). */
export function debComponent(used, arch, distro) {
  const purl = debPurl(used.name, used.version, arch, distro);
  const hash = { alg: 'SHA-256', content: used.sha256 };
  return {
    type: 'library',
    'bom-ref': purl,
    name: used.name,
    version: used.version,
    hashes: [hash],
    purl,
    externalReferences: [{ type: 'distribution', url: used.url, hashes: [hash] }],
    // A fallback replaced the pin (see README): the SBOM says what is inside, and what was pinned.
    ...(used.locked
      ? { properties: [{ name: 'kdp:image:locked-version', value: used.locked.version }] }
      : {}),
  };
}

/** The component of an npm package pinned in package-lock.json (`entry` is its `packages` entry). */
export function npmComponent(name, entry) {
  if (!entry?.version) throw new Error(`package-lock.json has no version of ${name}`);
  const purl = npmPurl(name, entry.version);
  return {
    type: 'library',
    'bom-ref': purl,
    name,
    version: entry.version,
    licenses: licensesOf(entry.license),
    ...(entry.integrity ? { hashes: [hashOfIntegrity(entry.integrity)] } : {}),
    purl,
  };
}

/** The component of one of the workspace's own packages (its package.json), built from `source`. */
export function workspaceComponent(packageJson, path, source, type = 'library') {
  const purl = npmPurl(packageJson.name, packageJson.version);
  return {
    type,
    'bom-ref': purl,
    name: packageJson.name,
    version: packageJson.version,
    licenses: licensesOf(packageJson.license),
    purl,
    externalReferences: [{ type: 'vcs', url: source }],
    properties: [{ name: 'kdp:image:workspace-path', value: path }],
  };
}

/** RFC 9562 version 5 (name-based, SHA-1) UUID of `name` in the URL namespace: a serial number without randomness. */
function uuidV5(name) {
  const namespace = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex');
  const bytes = createHash('sha1').update(namespace).update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const byRef = (a, b) => (a['bom-ref'] < b['bom-ref'] ? -1 : a['bom-ref'] > b['bom-ref'] ? 1 : 0);

/** Drops undefined fields, so that the serialized JSON holds only what is known. */
function defined(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

/**
 * One platform image's SBOM as bytes (CycloneDX 1.6 JSON).
 *
 * `image`: `{ name, version, arch, digest, source, revision, created, license }` (digest: the image manifest's);
 * `components`: every origin component (their `bom-ref`s unique); `files`: every regular file of every layer,
 * `{ path, sha256, layer, origin, pedigree? }` with `origin` a component's bom-ref; `dependencies`: a map from a
 * bom-ref to the bom-refs it depends on (the image itself is `image`).
 */
export function createSbom({ image, components, files, dependencies }) {
  const imagePurl = `pkg:oci/${image.name}@${encodeURIComponent(image.digest)}?arch=${image.arch}`;
  const refs = new Set(components.map((component) => component['bom-ref']));
  const nested = new Map(components.map((component) => [component['bom-ref'], []]));
  for (const file of files) {
    const children = nested.get(file.origin);
    if (!children) throw new Error(`sbom: /${file.path} comes from ${file.origin}, which is no component`);
    children.push(
      defined({
        type: 'file',
        'bom-ref': `file:/${file.path}`,
        name: `/${file.path}`,
        hashes: [{ alg: 'SHA-256', content: file.sha256 }],
        pedigree: file.pedigree,
        properties: [{ name: 'kdp:image:layer', value: file.layer }],
      }),
    );
  }
  const withFiles = components
    .map((component) => {
      const children = nested.get(component['bom-ref']).sort(byRef);
      return defined({ ...component, components: children.length > 0 ? children : undefined });
    })
    .sort(byRef);
  const dependsOn = (ref) => [...(dependencies.get(ref) ?? [])].sort();
  for (const [ref, targets] of dependencies) {
    for (const target of [ref, ...targets]) {
      if (target !== 'image' && !refs.has(target)) throw new Error(`sbom: dependency on unknown ${target}`);
    }
  }
  const bom = {
    $schema: `http://cyclonedx.org/schema/bom-${specVersion}.schema.json`,
    bomFormat: 'CycloneDX',
    specVersion,
    serialNumber: `urn:uuid:${uuidV5(imagePurl)}`,
    version: 1,
    metadata: {
      timestamp: image.created,
      lifecycles: [{ phase: 'build' }],
      tools: { components: [{ type: 'application', name: 'kdp tools/image' }] },
      component: defined({
        type: 'container',
        'bom-ref': imagePurl,
        name: image.name,
        version: image.version,
        licenses: licensesOf(image.license),
        purl: imagePurl,
        externalReferences: [{ type: 'vcs', url: image.source }],
        properties: [
          { name: 'org.opencontainers.image.revision', value: image.revision },
          { name: 'kdp:image:architecture', value: image.arch },
        ],
      }),
    },
    components: withFiles,
    dependencies: [
      { ref: imagePurl, dependsOn: dependsOn('image') },
      ...[...dependencies.keys()]
        .filter((ref) => ref !== 'image')
        .sort()
        .map((ref) => ({ ref, dependsOn: dependsOn(ref) })),
    ],
  };
  return Buffer.from(`${JSON.stringify(bom, null, 2)}\n`);
}
