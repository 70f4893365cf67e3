import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
/** A ResourceClaim as the kubelet reads it (the fields it uses). */
export interface ResourceClaimObject {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly uid: string };
  readonly status?: {
    readonly allocation?: {
      readonly devices?: {
        readonly results?: ReadonlyArray<{ readonly driver: string; readonly request?: string }>;
      };
    };
    readonly reservedFor?: ReadonlyArray<{
      readonly resource?: string;
      readonly name?: string;
      readonly uid?: string;
    }>;
  };
}

/** How the simulated kubelet reaches the API server. */
export interface DraApiServerConnection {
  /** Base URL, e.g. `http://127.0.0.1:6443` or `https://127.0.0.1:6443`. */
  readonly url: string;
  readonly token?: string;
  /** PEM of the CA that signed an `https` server's certificate (as a kubeconfig's `certificate-authority-data`, decoded). */
  readonly caData?: string;
  /** The resource.k8s.io version to read claims and delete slices through; default `v1` (the fields read are the same in v1beta1 and v1beta2). */
  readonly resourceApiVersion?: 'v1' | 'v1beta2' | 'v1beta1';
}

/** An API error with its HTTP code and the `Status` message. */
export class DraApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'DraApiError';
  }
}

/** The few API calls the kubelet's DRA manager makes. */
export interface DraApiClient {
  getClaim(namespace: string, name: string): Promise<ResourceClaimObject>;
  getNode(name: string): Promise<unknown>;
  /** DELETE collection of the node's ResourceSlices (one driver's when given); resolves with how many went. */
  deleteSlices(node: string, driver?: string): Promise<number>;
}

/** One request over `node:http` or `node:https` (trusting `caData` when given); resolves with status and body text. */
function sendRequest(
  connection: DraApiServerConnection,
  method: string,
  url: string,
): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method,
        headers: {
          Accept: 'application/json',
          ...(connection.token === undefined ? {} : { Authorization: `Bearer ${connection.token}` }),
        },
        ...(connection.caData === undefined ? {} : { ca: connection.caData }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Creates the client over `node:http` / `node:https`. */
export function createDraApiClient(connection: DraApiServerConnection): DraApiClient {
  const base = connection.url.replace(/\/+$/, '');
  const group = `/apis/resource.k8s.io/${connection.resourceApiVersion ?? 'v1'}`;
  const request = async (method: string, path: string): Promise<unknown> => {
    const response = await sendRequest(connection, method, `${base}${path}`);
    const { text } = response;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.status < 200 || response.status > 299) {
      const message = (body as { message?: unknown } | undefined)?.message;
      throw new DraApiError(
        response.status,
        typeof message === 'string' ? message : `HTTP ${response.status}: ${text}`,
      );
    }
    return body;
  };
  return {
    getClaim: async (namespace, name) =>
      (await request(
        'GET',
        `${group}/namespaces/${encodeURIComponent(namespace)}/resourceclaims/${encodeURIComponent(name)}`,
      )) as ResourceClaimObject,
    getNode: (name) => request('GET', `/api/v1/nodes/${encodeURIComponent(name)}`),
    deleteSlices: async (node, driver) => {
      const selector = [
        `spec.nodeName=${node}`,
        ...(driver === undefined ? [] : [`spec.driver=${driver}`]),
      ].join(',');
      const body = (await request(
        'DELETE',
        `${group}/resourceslices?fieldSelector=${encodeURIComponent(selector)}`,
      )) as { items?: unknown[] } | undefined;
      return body?.items?.length ?? 0;
    },
  };
}
