import type { IncomingMessage, ServerResponse } from 'node:http';
import { systemClock, type Clock } from '@kdp/base';
import { ApiError, badRequest, forbidden, methodNotAllowed, successStatus } from './api-errors';
import { deleteOptionsOf } from './delete-options';
import { dryRunOf } from './dry-run';
import { checkDeclaredFields, fieldValidationOf } from './field-validation';
import { readJsonBody, sendJson } from './http-json';
import type { KubeObject, ObjectStore } from './object-store';
import { patchMediaType, patchObject } from './patch-request';
import { type ApiRequestAttributes, type ApiVerb, requestVerb } from './request-verb';
import { createResourceCodec, type ResourceCodec } from './resource-codec';
import type { ResourceTarget } from './resource-target';
import { wantsTable } from './table';
import type { WatchHandler } from './watch-handler';

/** Options of {@link createResourceHandler}. */
export interface ResourceHandlerOptions {
  readonly store: ObjectStore;
  readonly watches: WatchHandler;
  /** When set, a request it refuses gets 403 Forbidden. */
  readonly authorize?: ((attributes: ApiRequestAttributes) => boolean) | undefined;
  /** Ages in Tables and `managedFields` times; default the system clock. */
  readonly clock?: Clock | undefined;
}

/** One resource request: the HTTP exchange, its parsed target and query, and its bearer token. */
export interface ResourceRequest {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly target: ResourceTarget;
  readonly query: URLSearchParams;
  readonly token: string | undefined;
}

/** Serves a request on a resource: resolves its verb, authorizes it, and runs it against the store. */
export type ResourceHandler = (call: ResourceRequest) => Promise<void>;

/** The verb of `call`, after the authorizer allowed it (405 when no verb fits, 403 when refused). */
function authorizedVerb(call: ResourceRequest, options: ResourceHandlerOptions): ApiVerb {
  const { type, namespace, name, subresource } = call.target;
  const method = call.request.method ?? 'GET';
  const isWatch = call.query.get('watch') === 'true' || call.query.get('watch') === '1';
  const verb = requestVerb(method, name, isWatch);
  if (verb === undefined) throw methodNotAllowed(method);
  if (verb === 'deletecollection' && type.plural === 'nodes') throw methodNotAllowed(method);
  if (
    options.authorize !== undefined &&
    !options.authorize({
      verb,
      resource: type.plural,
      ...(subresource === undefined ? {} : { subresource }),
      ...(namespace === undefined ? {} : { namespace }),
      ...(name === undefined ? {} : { name }),
      ...(call.token === undefined ? {} : { token: call.token }),
    })
  ) {
    throw forbidden(verb, type.plural, type.group, name, namespace);
  }
  return verb;
}

/** Sends `body` with one `Warning` header per unknown field (as kube-apiserver does for `fieldValidation=Warn`). */
function sendWithWarnings(response: ServerResponse, code: number, body: unknown, warnings: string[]): void {
  if (warnings.length > 0) {
    response.setHeader(
      'Warning',
      warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
  }
  sendJson(response, code, body);
}

const timestamp = (clock: Clock): string =>
  new Date(Math.floor(clock.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** PATCH: the patched object (or, for apply, the created one) as the store keeps it. */
async function servePatch(
  call: ResourceRequest,
  codec: ResourceCodec,
  options: ResourceHandlerOptions,
): Promise<void> {
  const { store } = options;
  const { type, namespace, name = '', subresource } = call.target;
  const mediaType = patchMediaType(call.request.headers['content-type']);
  const validation = fieldValidationOf(call.query);
  const dry = dryRunOf(call.query, 'patch') ? { dryRun: true } : {};
  const patch = await readJsonBody(call.request);
  let live: KubeObject | undefined;
  try {
    live = codec.encode(store.get(type.plural, name, namespace));
  } catch (err) {
    const missing = err instanceof ApiError && err.code === 404;
    if (!missing || mediaType !== 'application/apply-patch+yaml' || subresource !== undefined) throw err;
  }
  const patched = patchObject({
    resource: type.plural,
    mediaType,
    live,
    patch,
    fieldManager: call.query.get('fieldManager'),
    now: timestamp(options.clock ?? systemClock),
  });
  const object = codec.decode(patched);
  if ((object.metadata.name ?? name) !== name) {
    throw badRequest(
      `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  const warnings = checkDeclaredFields(type, object, validation);
  if (live === undefined) {
    sendWithWarnings(
      call.response,
      201,
      codec.one(
        store.create(type.plural, { ...object, metadata: { ...object.metadata, name } }, namespace, dry),
      ),
      warnings,
    );
    return;
  }
  const scope = namespace === undefined ? {} : { namespace };
  const onStatus = subresource === 'status' ? { subresource: 'status' as const } : {};
  const patchedRv = (patch as { metadata?: { resourceVersion?: string } } | null)?.metadata?.resourceVersion;
  const updated = store.update(
    type.plural,
    {
      ...object,
      metadata: { ...object.metadata, name, resourceVersion: patchedRv ?? live.metadata.resourceVersion },
    },
    { ...scope, ...onStatus, ...dry },
  );
  sendWithWarnings(call.response, 200, codec.one(updated), warnings);
}

/** POST and PUT: the body decoded, its undeclared fields dropped, then created or stored. */
async function serveWrite(
  call: ResourceRequest,
  codec: ResourceCodec,
  options: ResourceHandlerOptions,
  verb: 'create' | 'update',
): Promise<void> {
  const { store } = options;
  const { type, namespace, name, subresource } = call.target;
  const validation = fieldValidationOf(call.query);
  const dry = dryRunOf(call.query, verb) ? { dryRun: true } : {};
  const object = codec.decode(await readJsonBody(call.request));
  const warnings = checkDeclaredFields(type, object, validation);
  if (verb === 'create') {
    const created = store.create(type.plural, object, namespace, dry);
    sendWithWarnings(call.response, 201, codec.one(created), warnings);
    return;
  }
  if (object.metadata.name !== undefined && object.metadata.name !== name) {
    throw badRequest(
      `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  const updated = store.update(
    type.plural,
    { ...object, metadata: { ...object.metadata, name } },
    {
      ...(namespace === undefined ? {} : { namespace }),
      ...(subresource === 'status' ? { subresource: 'status' as const } : {}),
      ...dry,
    },
  );
  sendWithWarnings(call.response, 200, codec.one(updated), warnings);
}

/** Creates the handler of resource requests (get, list, watch, create, update, patch, delete, deletecollection). */
export function createResourceHandler(options: ResourceHandlerOptions): ResourceHandler {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  return async (call) => {
    const { request, response, target, query } = call;
    const { type, namespace, name = '' } = target;
    const verb = authorizedVerb(call, options);
    const codec = createResourceCodec({
      target,
      table: wantsTable(request.headers.accept),
      includeObject: query.get('includeObject'),
      now: () => clock.now(),
    });
    const listOptions = {
      ...(namespace === undefined ? {} : { namespace }),
      fieldSelector: query.get('fieldSelector'),
      labelSelector: query.get('labelSelector'),
    };
    switch (verb) {
      case 'watch':
        options.watches.serve(response, target, query, codec.one);
        return;
      case 'list': {
        const { items, resourceVersion: rv } = store.list(type.plural, listOptions);
        sendJson(response, 200, codec.list(items, rv));
        return;
      }
      case 'get':
        sendJson(response, 200, codec.one(store.get(type.plural, name, namespace)));
        return;
      case 'create':
      case 'update':
        await serveWrite(call, codec, options, verb);
        return;
      case 'patch':
        await servePatch(call, codec, options);
        return;
      case 'delete': {
        const { preconditions, dryRun } = deleteOptionsOf(query, await readJsonBody(request));
        const deleted = store.delete(type.plural, name, {
          ...(namespace === undefined ? {} : { namespace }),
          ...(preconditions === undefined ? {} : { preconditions }),
          ...(dryRun === true ? { dryRun } : {}),
        });
        sendJson(response, 200, successStatus(type.plural, type.group, name, deleted.metadata.uid ?? ''));
        return;
      }
      case 'deletecollection': {
        const { dryRun } = deleteOptionsOf(query, await readJsonBody(request), verb);
        const deleted = store.deleteCollection(type.plural, {
          ...listOptions,
          ...(dryRun === true ? { dryRun } : {}),
        });
        sendJson(response, 200, codec.list(deleted, String(store.resourceVersion())));
        return;
      }
    }
  };
}
