import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import type { LayerFiles } from './oci-layout';

// The SBOM checks of the image tests: the CycloneDX 1.6 JSON schema (vendored in ./cyclonedx from the npm
// package @cyclonedx/cyclonedx-library, so the check needs no network) and what the schema cannot say: every
// regular file of every layer listed with its sha256 under an origin component, Node's locked version and
// hash, each Debian package's version and sha256, each npm package's version and license.

/** A CycloneDX hash. */
interface Hash {
  readonly alg: string;
  readonly content: string;
}

/** The parts of a CycloneDX component the checks read. */
export interface SbomComponent {
  readonly type: string;
  readonly 'bom-ref'?: string;
  readonly name: string;
  readonly version?: string;
  readonly purl?: string;
  readonly hashes?: readonly Hash[];
  readonly licenses?: ReadonlyArray<{ expression?: string; license?: { id?: string; name?: string } }>;
  readonly externalReferences?: ReadonlyArray<{ type: string; url: string; hashes?: readonly Hash[] }>;
  readonly properties?: ReadonlyArray<{ name: string; value: string }>;
  readonly evidence?: { occurrences?: ReadonlyArray<{ location: string }> };
  readonly components?: readonly SbomComponent[];
}

/** The parts of a CycloneDX document the checks read. */
export interface Sbom {
  readonly bomFormat: string;
  readonly specVersion: string;
  readonly metadata: { readonly component: SbomComponent };
  readonly components: readonly SbomComponent[];
}

/** What the build knew about one platform image (its image.json entry and the locks). */
export interface SbomFacts {
  readonly binary: string;
  readonly arch: 'amd64' | 'arm64';
  /** The image manifest's digest. */
  readonly digest: string;
  /** image.json's `debs` of this image: the Debian packages used. */
  readonly debs: ReadonlyArray<{ name: string; version: string; url: string; sha256: string }>;
  /** tools/image/image-lock.json. */
  readonly lock: {
    readonly node: {
      readonly version: string;
      readonly packages: Readonly<Record<string, { name: string; integrity: string }>>;
    };
  };
  /** package-lock.json's `packages`. */
  readonly packageLock: Readonly<Record<string, { version?: string; license?: string; integrity?: string }>>;
}

const schemaDir = join(__dirname, 'cyclonedx');
const readSchema = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(schemaDir, file), 'utf8')) as Record<string, unknown>;

/** A validator for CycloneDX 1.6 JSON documents: returns the schema errors, [] when valid. */
export function createSbomValidator(): (document: unknown) => string[] {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/);
  ajv.addFormat('iri-reference', /^\S+$/);
  ajv.addFormat('uri', (value: string) => URL.canParse(value));
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/);
  // The bom schema refers to its companions by their file names, relative to its own $id.
  for (const file of ['spdx.SNAPSHOT.schema.json', 'jsf-0.82.SNAPSHOT.schema.json']) {
    ajv.addSchema({ ...readSchema(file), $id: `http://cyclonedx.org/schema/${file}` });
  }
  const validate = ajv.compile(readSchema('bom-1.6.SNAPSHOT.schema.json'));
  return (document) =>
    validate(document)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`.trim());
}

const hexOfIntegrity = (integrity: string): Hash => {
  const dash = integrity.indexOf('-');
  const alg = { sha512: 'SHA-512', sha256: 'SHA-256' }[integrity.slice(0, dash)] ?? integrity.slice(0, dash);
  return { alg, content: Buffer.from(integrity.slice(dash + 1), 'base64').toString('hex') };
};

const hasHash = (component: SbomComponent | undefined, hash: Hash): boolean =>
  (component?.hashes ?? []).some((h) => h.alg === hash.alg && h.content === hash.content);

/** Every file component of the document with the (top-level) component it is nested under. */
export function sbomFiles(sbom: Sbom): Map<string, { file: SbomComponent; origin: SbomComponent }> {
  const files = new Map<string, { file: SbomComponent; origin: SbomComponent }>();
  for (const origin of sbom.components) {
    for (const file of origin.components ?? []) {
      if (file.type === 'file') files.set(file.name, { file, origin });
    }
  }
  return files;
}

/**
 * What is wrong with `sbom` for the image whose `layers` are given, beyond the schema: one line per problem,
 * [] when it lists every regular file of every layer with its sha256, layer and origin component, Node with
 * its locked version and hash, every Debian package used with its version and sha256, and every npm package
 * with a version, a license and (for registry packages) package-lock.json's integrity.
 */
export function sbomProblems(sbom: Sbom, layers: readonly LayerFiles[], facts: SbomFacts): string[] {
  const problems: string[] = [];
  const purl = `pkg:oci/${facts.binary}@${encodeURIComponent(facts.digest)}?arch=${facts.arch}`;
  if (sbom.metadata.component.purl !== purl) problems.push(`metadata.component.purl is not ${purl}`);

  const listed = sbomFiles(sbom);
  const inLayers = new Set<string>();
  for (const layer of layers) {
    for (const [path, sha256] of layer.files) {
      const name = `/${path}`;
      inLayers.add(name);
      const entry = listed.get(name);
      if (!entry) {
        problems.push(`${name} (${layer.name} layer) is not listed`);
        continue;
      }
      if (!hasHash(entry.file, { alg: 'SHA-256', content: sha256 })) problems.push(`${name}: sha256 differs`);
      const layerName = entry.file.properties?.find((p) => p.name === 'kdp:image:layer')?.value;
      if (layerName !== layer.name)
        problems.push(`${name}: listed in layer ${layerName}, is in ${layer.name}`);
      if (!entry.origin.version || !entry.origin.purl)
        problems.push(`${name}: origin has no version or purl`);
    }
  }
  for (const name of listed.keys()) if (!inLayers.has(name)) problems.push(`${name} is in no layer`);

  const byPurl = new Map(sbom.components.map((component) => [component.purl, component]));
  const nodePackage = facts.lock.node.packages[facts.arch];
  const node = byPurl.get(`pkg:npm/${nodePackage?.name}@${facts.lock.node.version}`);
  if (
    node?.version !== facts.lock.node.version ||
    !hasHash(node, hexOfIntegrity(nodePackage?.integrity ?? ''))
  )
    problems.push(`no Node component with the locked version ${facts.lock.node.version} and integrity`);
  if (listed.get('/nodejs/bin/node')?.origin !== node)
    problems.push('/nodejs/bin/node does not come from Node');

  for (const deb of facts.debs) {
    const component = sbom.components.find((c) =>
      c.purl?.startsWith(`pkg:deb/debian/${encodeURIComponent(deb.name)}@`),
    );
    const hash = { alg: 'SHA-256', content: deb.sha256 };
    if (component?.version !== deb.version || !hasHash(component, hash)) {
      problems.push(`no ${deb.name} component with version ${deb.version} and sha256 ${deb.sha256}`);
    } else if (!component.externalReferences?.some((r) => r.type === 'distribution' && r.url === deb.url)) {
      problems.push(`${deb.name}: no distribution URL ${deb.url}`);
    }
  }

  for (const component of sbom.components.filter((c) => c.purl?.startsWith('pkg:npm/'))) {
    const license = component.licenses?.[0];
    if (!component.version || !(license?.expression ?? license?.license?.id ?? license?.license?.name)) {
      problems.push(`${component.purl}: no version or license`);
    }
    if (component === node || component.name.startsWith('@kdp/')) continue;
    const locked = Object.entries(facts.packageLock).find(
      ([key, entry]) => key.endsWith(`node_modules/${component.name}`) && entry.version === component.version,
    )?.[1];
    if (!locked?.integrity || !hasHash(component, hexOfIntegrity(locked.integrity))) {
      problems.push(`${component.purl}: not package-lock.json's version and integrity`);
    }
  }
  return problems;
}
