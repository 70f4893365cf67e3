/** A reply of the API server, its body parsed. */
export interface ApiReply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A JSON request to the API server at `url()` (read at each call): method, path, body and extra headers. */
export type ApiCall = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<ApiReply>;

/** Creates {@link ApiCall} for specs; `url` gives the running server's URL. */
export function createApiCall(url: () => string): ApiCall {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${url()}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown>,
    };
  };
}
