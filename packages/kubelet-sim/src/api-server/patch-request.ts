import { badRequest, unsupportedMediaType } from './api-errors';
import { jsonPatch } from './json-patch';
import { mergePatch } from './merge-patch';
import type { KubeObject } from './resource-types';
import { serverSideApply } from './server-side-apply';
import { strategicMergePatch } from './strategic-merge-patch';

/** The patch media types the API server accepts. */
export const patchMediaTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

/** One of {@link patchMediaTypes}. */
export type PatchMediaType = (typeof patchMediaTypes)[number];

/** The patch type of a `Content-Type` header (415 for another). */
export function patchMediaType(contentType: string | undefined): PatchMediaType {
  const type = (contentType ?? '').split(';')[0]?.trim() ?? '';
  const known = patchMediaTypes.find((t) => t === type);
  if (known === undefined) throw unsupportedMediaType(type);
  return known;
}

/** What {@link patchObject} patches. */
export interface PatchInput {
  readonly resource: string;
  readonly mediaType: PatchMediaType;
  /** The object as the client sees it (in the request's version); `undefined` when it does not exist. */
  readonly live: KubeObject | undefined;
  readonly patch: unknown;
  /** `fieldManager` (required for apply). */
  readonly fieldManager: string | null;
  readonly now: string;
}

/**
 * The object a PATCH makes of `live`, in the request's version: RFC 7386 merge patch, strategic merge patch,
 * RFC 6902 JSON patch, or server-side apply (which alone may create the object: `live` undefined).
 */
export function patchObject(input: PatchInput): KubeObject {
  const { live, patch } = input;
  switch (input.mediaType) {
    case 'application/apply-patch+yaml': {
      if (input.fieldManager === null || input.fieldManager === '') {
        throw badRequest('PATCH: fieldManager is required for apply requests');
      }
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
        throw badRequest('error decoding YAML: the applied configuration must be an object');
      }
      return serverSideApply(input.resource, live, patch as KubeObject, input.fieldManager, input.now);
    }
    case 'application/merge-patch+json':
      return mergePatch(live, patch) as KubeObject;
    case 'application/strategic-merge-patch+json':
      return strategicMergePatch(input.resource, live, patch) as KubeObject;
    case 'application/json-patch+json':
      return jsonPatch(live, patch) as KubeObject;
  }
}
