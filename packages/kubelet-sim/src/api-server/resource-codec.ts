import { asKubeObject } from './http-json';
import type { KubeObject } from './resource-types';
import type { ResourceTarget } from './resource-target';
import { fromStorageVersion, type ResourceApiVersion, toStorageVersion } from './resource-version-conversion';
import { asTable } from './table';

/** How one request's objects cross the HTTP boundary: its version, and JSON or Table. */
export interface ResourceCodec {
  /** A request body as stored (resource.k8s.io objects converted to v1). */
  decode(body: unknown): KubeObject;
  /** A stored object in the request's version. */
  encode(object: KubeObject): KubeObject;
  /** The response body for one object (a Table of one row when asked). */
  one(object: KubeObject): unknown;
  /** The response body for a list (a `…List`, or a Table). */
  list(objects: readonly KubeObject[], resourceVersion: string): unknown;
}

/** Options of {@link createResourceCodec}. */
export interface ResourceCodecOptions {
  readonly target: ResourceTarget;
  /** Whether the client asked for a Table (`Accept: application/json;as=Table;…`). */
  readonly table: boolean;
  /** `includeObject` of a Table request. */
  readonly includeObject: string | null;
  readonly now: () => number;
}

/** Creates the codec of one request on `target`. */
export function createResourceCodec(options: ResourceCodecOptions): ResourceCodec {
  const { type, version } = options.target;
  const converts = type.group === 'resource.k8s.io';
  const encode = (object: KubeObject): KubeObject =>
    converts ? fromStorageVersion(type.plural, object, version as ResourceApiVersion) : object;
  const table = (objects: readonly KubeObject[], resourceVersion?: string): unknown =>
    asTable(type.plural, objects.map(encode), {
      now: options.now(),
      includeObject: options.includeObject,
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
    });
  return {
    decode: (body) => {
      const object = asKubeObject(body);
      return converts ? toStorageVersion(type.plural, object, version as ResourceApiVersion) : object;
    },
    encode,
    one: (object) => (options.table ? table([object]) : encode(object)),
    list: (objects, resourceVersion) =>
      options.table
        ? table(objects, resourceVersion)
        : {
            kind: `${type.kind}List`,
            apiVersion: type.group === '' ? version : `${type.group}/${version}`,
            metadata: { resourceVersion },
            items: objects.map(encode),
          },
  };
}
