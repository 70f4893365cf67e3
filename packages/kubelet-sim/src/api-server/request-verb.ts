/** What an authorizer decides on: the request's verb and target, and the bearer token it carried. */
export interface ApiRequestAttributes {
  readonly verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly token?: string;
}

/** An API verb. */
export type ApiVerb = ApiRequestAttributes['verb'];

/** The verb of an HTTP request on a resource (`name` absent: the collection), or `undefined` when none fits. */
export function requestVerb(method: string, name: string | undefined, isWatch: boolean): ApiVerb | undefined {
  switch (method) {
    case 'GET':
      if (isWatch) return 'watch';
      return name === undefined ? 'list' : 'get';
    case 'POST':
      return name === undefined ? 'create' : undefined;
    case 'PUT':
      return name === undefined ? undefined : 'update';
    case 'PATCH':
      return name === undefined ? undefined : 'patch';
    case 'DELETE':
      return name === undefined ? 'deletecollection' : 'delete';
    default:
      return undefined;
  }
}
