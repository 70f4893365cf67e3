import { objectId, type KubeObject } from './kube-object';
import { schemaModel } from './schema-models';

/** Kinds with no vendored schema, checked structurally by their own specs (dra-variants, device-placement). */
const checkedElsewhere = new Set([
  'resource.k8s.io/v1/DeviceClass',
  'nfd.k8s-sigs.io/v1alpha1/NodeFeatureRule',
]);

/** Each object's schema violation (or its kind having no schema, unless checked elsewhere), as `id: message`. */
export function schemaProblems(objects: readonly KubeObject[]): string[] {
  return objects.flatMap((object) => {
    const model = schemaModel(object.apiVersion, object.kind);
    if (model === undefined)
      return checkedElsewhere.has(`${object.apiVersion}/${object.kind}`)
        ? []
        : [`${objectId(object)}: no schema for ${object.apiVersion} ${object.kind}`];
    try {
      model.validate(object);
      return [];
    } catch (error) {
      return [`${objectId(object)}: ${(error as Error).message}`];
    }
  });
}
