import { isNamespaced, type KubeObject } from './kube-object';

/** A `labels` entry of a kustomization. */
export interface LabelsEntry {
  pairs: Record<string, string>;
  includeSelectors?: boolean;
  includeTemplates?: boolean;
}

/** An `images` entry of a kustomization. */
export interface ImageEntry {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

type Mapping = Record<string, unknown>;

function mapping(parent: Mapping, key: string): Mapping {
  const value = parent[key];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Mapping;
  const created: Mapping = {};
  parent[key] = created;
  return created;
}

/** The pod templates of a workload object (spec.template, or a CronJob's job template's). */
function podTemplates(object: KubeObject): Mapping[] {
  const spec = object['spec'] as Mapping | undefined;
  if (spec === undefined) return [];
  if (object.kind === 'CronJob') {
    const job = (spec['jobTemplate'] as Mapping | undefined)?.['spec'] as Mapping | undefined;
    const template = job?.['template'] as Mapping | undefined;
    return template === undefined ? [] : [template];
  }
  const template = spec['template'] as Mapping | undefined;
  return template === undefined ? [] : [template];
}

/** kustomize's NamespaceTransformer: every namespaced object moves to `namespace`. */
export function setNamespace(objects: KubeObject[], namespace: string): void {
  for (const object of objects) if (isNamespaced(object.kind)) object.metadata.namespace = namespace;
}

/** kustomize's `labels`: metadata labels always, pod-template labels and selectors when asked. */
export function addLabels(objects: KubeObject[], entry: LabelsEntry): void {
  const templates = entry.includeTemplates === true || entry.includeSelectors === true;
  for (const object of objects) {
    Object.assign(mapping(object.metadata, 'labels'), entry.pairs);
    if (templates) {
      for (const template of podTemplates(object))
        Object.assign(mapping(mapping(template, 'metadata'), 'labels'), entry.pairs);
    }
    if (entry.includeSelectors === true && podTemplates(object).length > 0) {
      Object.assign(mapping(mapping(object['spec'] as Mapping, 'selector'), 'matchLabels'), entry.pairs);
    }
  }
}

function splitImage(image: string): { name: string; tag?: string; digest?: string } {
  const at = image.indexOf('@');
  const digest = at < 0 ? undefined : image.slice(at + 1);
  const rest = at < 0 ? image : image.slice(0, at);
  const colon = rest.lastIndexOf(':');
  const hasTag = colon > rest.lastIndexOf('/');
  const name = hasTag ? rest.slice(0, colon) : rest;
  const tag = hasTag ? rest.slice(colon + 1) : undefined;
  return { name, ...(tag === undefined ? {} : { tag }), ...(digest === undefined ? {} : { digest }) };
}

/** kustomize's ImageTagTransformer on containers and init containers of pod templates. */
export function setImages(objects: KubeObject[], entries: readonly ImageEntry[]): void {
  for (const object of objects) {
    for (const template of podTemplates(object)) {
      const spec = template['spec'] as Mapping | undefined;
      for (const key of ['containers', 'initContainers']) {
        for (const container of (spec?.[key] as Mapping[] | undefined) ?? []) {
          const image = splitImage(String(container['image']));
          const entry = entries.find((candidate) => candidate.name === image.name);
          if (entry === undefined) continue;
          const name = entry.newName ?? image.name;
          if (entry.digest !== undefined) container['image'] = `${name}@${entry.digest}`;
          else {
            const tag = entry.newTag ?? image.tag;
            const suffix = image.digest !== undefined && entry.newTag === undefined ? `@${image.digest}` : '';
            container['image'] = `${name}${tag === undefined ? '' : `:${tag}`}${suffix}`;
          }
        }
      }
    }
  }
}
