import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { applyJsonPatch, type JsonPatchOperation } from './apply-json-patch';
import { apiGroup, asKubeObject, objectId, type KubeObject } from './kube-object';
import {
  addLabels,
  setImages,
  setNamespace,
  type ImageEntry,
  type LabelsEntry,
} from './kustomize-transforms';
import { parseYamlDocuments } from './parse-yaml-documents';
import { strategicMerge } from './strategic-merge';

/** A `patches` entry: a file or inline patch, strategic-merge (a mapping) or JSON 6902 (a list), with a target. */
interface PatchEntry {
  path?: string;
  patch?: string;
  target?: {
    group?: string;
    version?: string;
    kind?: string;
    name?: string;
    namespace?: string;
    labelSelector?: string;
  };
}

interface Kustomization {
  apiVersion?: string;
  kind?: 'Kustomization' | 'Component';
  resources?: string[];
  components?: string[];
  namespace?: string;
  labels?: LabelsEntry[];
  images?: ImageEntry[];
  patches?: PatchEntry[];
}

const supportedFields = new Set([
  'apiVersion',
  'kind',
  'resources',
  'components',
  'namespace',
  'labels',
  'images',
  'patches',
]);
const fileNames = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

function readKustomization(dir: string): { file: string; kustomization: Kustomization } {
  const name = fileNames.find((candidate) => existsSync(join(dir, candidate)));
  if (name === undefined) throw new Error(`${dir}: no kustomization.yaml`);
  const file = join(dir, name);
  const [value] = parseYamlDocuments(readFileSync(file, 'utf8'), file);
  if (typeof value !== 'object' || value === null) throw new Error(`${file}: empty kustomization`);
  for (const field of Object.keys(value)) {
    if (!supportedFields.has(field))
      throw new Error(`${file}: field "${field}" is not supported by this renderer`);
  }
  return { file, kustomization: value as Kustomization };
}

/** kustomize's load restriction: files must lie in or below the kustomization's directory. */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..');
}

function readObjects(path: string): KubeObject[] {
  return parseYamlDocuments(readFileSync(path, 'utf8'), path).map((value, i) =>
    asKubeObject(value, `${path} #${i + 1}`),
  );
}

function add(objects: KubeObject[], more: readonly KubeObject[], where: string): void {
  for (const object of more) {
    const id = objectId(object);
    if (objects.some((existing) => objectId(existing) === id)) {
      throw new Error(`${where}: may not add resource with an already registered id: ${id}`);
    }
    objects.push(object);
  }
}

function matchesLabels(object: KubeObject, selector: string): boolean {
  const labels = object.metadata.labels ?? {};
  return selector.split(',').every((term) => {
    const [key, value] = term.split('=').map((part) => part.trim());
    return key !== undefined && labels[key] === value;
  });
}

function matchesTarget(object: KubeObject, target: NonNullable<PatchEntry['target']>): boolean {
  if (target.kind !== undefined && object.kind !== target.kind) return false;
  if (target.name !== undefined && object.metadata.name !== target.name) return false;
  if (target.namespace !== undefined && object.metadata.namespace !== target.namespace) return false;
  if (target.group !== undefined && apiGroup(object.apiVersion) !== target.group) return false;
  if (target.version !== undefined && !object.apiVersion.endsWith(target.version)) return false;
  if (target.labelSelector !== undefined && !matchesLabels(object, target.labelSelector)) return false;
  return true;
}

function applyPatch(objects: KubeObject[], entry: PatchEntry, dir: string, file: string): void {
  let text: string;
  let where = file;
  if (entry.path !== undefined) {
    const path = resolve(dir, entry.path);
    if (!inside(dir, path)) throw new Error(`${file}: patch ${entry.path} is not in or below ${dir}`);
    text = readFileSync(path, 'utf8');
    where = path;
  } else if (entry.patch !== undefined) {
    text = entry.patch;
  } else {
    throw new Error(`${file}: a patch needs path or patch`);
  }
  const [patch] = parseYamlDocuments(text, where);
  if (Array.isArray(patch)) {
    if (entry.target === undefined) throw new Error(`${where}: a JSON 6902 patch needs a target`);
    const target = entry.target;
    objects.forEach((object, i) => {
      if (matchesTarget(object, target)) objects[i] = applyJsonPatch(object, patch as JsonPatchOperation[]);
    });
    return;
  }
  const smp = asKubeObject(patch, where);
  const target = entry.target ?? {
    kind: smp.kind,
    name: smp.metadata.name,
    group: apiGroup(smp.apiVersion),
    ...(smp.metadata.namespace === undefined ? {} : { namespace: smp.metadata.namespace }),
  };
  const matches = objects.filter((object) => matchesTarget(object, target));
  if (entry.target === undefined && matches.length !== 1) {
    throw new Error(`${where}: the patch must match exactly one object, matched ${matches.length}`);
  }
  objects.forEach((object, i) => {
    if (matchesTarget(object, target)) {
      const merged = strategicMerge(object, {
        ...smp,
        metadata: { ...smp.metadata, name: object.metadata.name },
      });
      objects[i] = merged as KubeObject;
    }
  });
}

/** Applies a kustomization's (or component's) own transformers in kustomize's order: patches, namespace, labels, images. */
function transform(objects: KubeObject[], kustomization: Kustomization, dir: string, file: string): void {
  for (const entry of kustomization.patches ?? []) applyPatch(objects, entry, dir, file);
  if (kustomization.namespace !== undefined) setNamespace(objects, kustomization.namespace);
  for (const entry of kustomization.labels ?? []) addLabels(objects, entry);
  if (kustomization.images !== undefined) setImages(objects, kustomization.images);
}

function build(dir: string, expectKind: 'Kustomization' | 'Component', objects: KubeObject[]): KubeObject[] {
  const { file, kustomization } = readKustomization(dir);
  const kind = kustomization.kind ?? 'Kustomization';
  if (kind !== expectKind) throw new Error(`${file}: expected kind ${expectKind}, found ${kind}`);
  for (const entry of kustomization.resources ?? []) {
    const path = resolve(dir, entry);
    if (!existsSync(path)) throw new Error(`${file}: resource ${entry} does not exist`);
    if (statSync(path).isDirectory()) add(objects, renderKustomization(path), file);
    else if (inside(dir, path)) add(objects, readObjects(path), file);
    else throw new Error(`${file}: file ${entry} is not in or below ${dir}`);
  }
  for (const entry of kustomization.components ?? []) build(resolve(dir, entry), 'Component', objects);
  transform(objects, kustomization, dir, file);
  return objects;
}

/**
 * Renders a kustomization directory as `kustomize build` would, for the subset kdp's manifests use: resources
 * (files and directories), components, namespace, labels, images and patches (strategic merge or JSON 6902).
 * Any other field is an error, never silently ignored.
 */
export function renderKustomization(dir: string): KubeObject[] {
  return build(resolve(dir), 'Kustomization', []);
}
