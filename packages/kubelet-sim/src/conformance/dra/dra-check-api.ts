import { DraApiError, type DraApiServerConnection } from '../../dra/dra-api-client';

/** A Kubernetes object as the suite reads it (loosely typed: the checks validate it). */
export interface ApiObject {
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly ownerReferences?: ReadonlyArray<{
      readonly apiVersion?: string;
      readonly kind?: string;
      readonly name?: string;
      readonly uid?: string;
    }>;
  };
  readonly [key: string]: unknown;
}

/** The API calls of the DRA suite: the node, this driver's slices, and the claim it allocates by hand. */
export interface DraCheckApi {
  getNode(name: string): Promise<ApiObject>;
  createNode(name: string): Promise<ApiObject>;
  /** The ResourceSlices with `spec.nodeName` = `node` and `spec.driver` = `driver`. */
  listSlices(node: string, driver: string): Promise<ApiObject[]>;
  createClaim(namespace: string, claim: Record<string, unknown>): Promise<ApiObject>;
  updateClaimStatus(namespace: string, claim: ApiObject): Promise<ApiObject>;
  deleteClaim(namespace: string, name: string): Promise<void>;
}

const claims = (namespace: string): string =>
  `/apis/resource.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/resourceclaims`;

/** Creates the suite's client over `fetch` (JSON, an optional bearer token). */
export function createDraCheckApi(connection: DraApiServerConnection): DraCheckApi {
  const base = connection.url.replace(/\/+$/, '');
  const request = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(connection.token === undefined ? {} : { Authorization: `Bearer ${connection.token}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const message = (parsed as { message?: unknown } | undefined)?.message;
      throw new DraApiError(
        response.status,
        `${method} ${path}: ${typeof message === 'string' ? message : `HTTP ${response.status}: ${text}`}`,
      );
    }
    return parsed;
  };
  return {
    getNode: async (name) => (await request('GET', `/api/v1/nodes/${encodeURIComponent(name)}`)) as ApiObject,
    createNode: async (name) =>
      (await request('POST', '/api/v1/nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name },
      })) as ApiObject,
    listSlices: async (node, driver) => {
      const selector = encodeURIComponent(`spec.nodeName=${node},spec.driver=${driver}`);
      const list = (await request(
        'GET',
        `/apis/resource.k8s.io/v1/resourceslices?fieldSelector=${selector}`,
      )) as { items?: ApiObject[] } | undefined;
      return list?.items ?? [];
    },
    createClaim: async (namespace, claim) =>
      (await request('POST', claims(namespace), {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaim',
        ...claim,
      })) as ApiObject,
    updateClaimStatus: async (namespace, claim) =>
      (await request(
        'PUT',
        `${claims(namespace)}/${encodeURIComponent(claim.metadata.name ?? '')}/status`,
        claim,
      )) as ApiObject,
    deleteClaim: async (namespace, name) => {
      await request('DELETE', `${claims(namespace)}/${encodeURIComponent(name)}`);
    },
  };
}
