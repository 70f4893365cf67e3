import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, forbidden, methodNotAllowed, successStatus, unsupportedMediaType } from './api-errors';
import { asKubeObject, readJsonBody, sendJson } from './http-json';
import type { KubeObject, ObjectStore } from './object-store';
import { type ApiRequestAttributes, type ApiVerb, requestVerb } from './request-verb';
import type { ResourceTarget } from './resource-target';
import type { WatchHandler } from './watch-handler';

/** Options of {@link createResourceHandler}. */
export interface ResourceHandlerOptions {
  readonly store: ObjectStore;
  readonly watches: WatchHandler;
  /** When set, a request it refuses gets 403 Forbidden. */
  readonly authorize?: ((attributes: ApiRequestAttributes) => boolean) | undefined;
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

/** Creates the handler of resource requests (get, list, watch, create, update, patch, delete, deletecollection). */
export function createResourceHandler(options: ResourceHandlerOptions): ResourceHandler {
  const { store } = options;
  return async (call) => {
    const { request, response, target, query } = call;
    const { type, namespace, name, subresource } = target;
    const verb = authorizedVerb(call, options);
    const scope = namespace === undefined ? {} : { namespace };
    const onStatus = subresource === 'status' ? { subresource: 'status' as const } : {};
    const listOptions = {
      ...scope,
      fieldSelector: query.get('fieldSelector'),
      labelSelector: query.get('labelSelector'),
    };
    const listKind = (items: KubeObject[], rv: string): unknown => ({
      kind: `${type.kind}List`,
      apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`,
      metadata: { resourceVersion: rv },
      items,
    });
    switch (verb) {
      case 'watch':
        options.watches.serve(response, target, query);
        return;
      case 'list': {
        const { items, resourceVersion: rv } = store.list(type.plural, listOptions);
        sendJson(response, 200, listKind(items, rv));
        return;
      }
      case 'get':
        sendJson(response, 200, store.get(type.plural, name ?? '', namespace));
        return;
      case 'create': {
        const object = asKubeObject(await readJsonBody(request));
        sendJson(response, 201, store.create(type.plural, object, namespace));
        return;
      }
      case 'update': {
        const object = asKubeObject(await readJsonBody(request));
        if (object.metadata.name !== undefined && object.metadata.name !== name) {
          throw badRequest(
            `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
          );
        }
        const updated = store.update(
          type.plural,
          { ...object, metadata: { ...object.metadata, name } },
          { ...scope, ...onStatus },
        );
        sendJson(response, 200, updated);
        return;
      }
      case 'patch': {
        const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
        if (
          contentType !== 'application/merge-patch+json' &&
          contentType !== 'application/strategic-merge-patch+json'
        ) {
          throw unsupportedMediaType(contentType);
        }
        const patch = await readJsonBody(request);
        sendJson(response, 200, store.patch(type.plural, name ?? '', patch, { ...scope, ...onStatus }));
        return;
      }
      case 'delete': {
        const body = (await readJsonBody(request)) as
          { preconditions?: { uid?: string; resourceVersion?: string } } | undefined;
        const deleted = store.delete(type.plural, name ?? '', {
          ...scope,
          ...(body?.preconditions === undefined ? {} : { preconditions: body.preconditions }),
        });
        sendJson(
          response,
          200,
          successStatus(type.plural, type.group, name ?? '', deleted.metadata.uid ?? ''),
        );
        return;
      }
      case 'deletecollection': {
        const deleted = store.deleteCollection(type.plural, listOptions);
        sendJson(response, 200, listKind(deleted, String(store.resourceVersion())));
        return;
      }
    }
  };
}
