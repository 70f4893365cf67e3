import { type ApiError, badRequest, conflict, internalError } from './api-errors';
import type { KubeObject, ResourceType } from './resource-types';

/** The 409 of a failed precondition, with kube-apiserver's message. */
const preconditionFailed = (
  type: ResourceType,
  name: string,
  field: 'UID' | 'ResourceVersion',
  wanted: string | undefined,
  actual: string | undefined,
): ApiError =>
  conflict(
    type.plural,
    type.group,
    name,
    `Precondition failed: ${field} in precondition: ${wanted}, ${field} in object meta: ${actual}`,
  );

const generateSuffixChars = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * The metadata of an object to create: its namespace settled (a mismatch with the request's is a 400), no
 * resourceVersion (else a 500, as kube-apiserver answers), and a name generated from `generateName`.
 */
export function createMetadata(
  type: ResourceType,
  object: KubeObject,
  namespace: string | undefined,
): KubeObject['metadata'] {
  const meta = { ...(object.metadata ?? {}) };
  if (type.namespaced) {
    const ns = namespace ?? meta.namespace ?? 'default';
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== ns) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    meta.namespace = ns;
  } else delete meta.namespace;
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
    throw internalError('resourceVersion should not be set on objects to be created');
  }
  if ((meta.name ?? '') === '' && (meta.generateName ?? '') !== '') {
    let suffix = '';
    for (let i = 0; i < 5; i += 1)
      suffix += generateSuffixChars[Math.floor(Math.random() * generateSuffixChars.length)];
    meta.name = `${meta.generateName}${suffix}`;
  }
  return meta;
}

/** An update's preconditions: a non-empty `resourceVersion` and `uid` must be the stored object's (else 409). */
export function checkUpdatePreconditions(type: ResourceType, object: KubeObject, old: KubeObject): void {
  const name = object.metadata?.name ?? '';
  const wanted = object.metadata?.resourceVersion;
  if (wanted !== undefined && wanted !== '' && wanted !== old.metadata.resourceVersion) {
    throw conflict(type.plural, type.group, name);
  }
  const uid = object.metadata?.uid;
  if (uid !== undefined && uid !== '' && uid !== old.metadata.uid) {
    throw preconditionFailed(type, name, 'UID', uid, old.metadata.uid);
  }
}

/** A delete's preconditions: the given `uid` and `resourceVersion` must be the stored object's (else 409). */
export function checkDeletePreconditions(
  type: ResourceType,
  name: string,
  pre: { uid?: string; resourceVersion?: string } | undefined,
  old: KubeObject,
): void {
  if (pre?.uid !== undefined && pre.uid !== old.metadata.uid) {
    throw preconditionFailed(type, name, 'UID', pre.uid, old.metadata.uid);
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion) {
    throw preconditionFailed(
      type,
      name,
      'ResourceVersion',
      pre.resourceVersion,
      old.metadata.resourceVersion,
    );
  }
}
