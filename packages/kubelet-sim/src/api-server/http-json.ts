import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest } from './api-errors';
import type { KubeObject } from './object-store';

/** The largest request body the API server reads (kube-apiserver's limit is 3 MiB). */
const maxBodyBytes = 3 * 1024 * 1024;

/** Writes `body` as a JSON response with status `code`. */
export function sendJson(response: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** Reads a JSON request body: `undefined` when empty, a 413 when too large, a 400 when not JSON. */
export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes)
      throw new ApiError({
        ...badRequest('request entity too large').status,
        code: 413,
        reason: 'RequestEntityTooLarge',
      });
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw badRequest(
      `the body of the request could not be decoded: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** A request body as an API object (a 400 unless a JSON object); a missing `metadata` becomes `{}`. */
export function asKubeObject(body: unknown): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('the request body must be a JSON object');
  const object = body as KubeObject;
  return {
    ...object,
    metadata: typeof object.metadata === 'object' && object.metadata !== null ? object.metadata : {},
  };
}
