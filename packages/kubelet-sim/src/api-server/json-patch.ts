import { isDeepStrictEqual } from 'node:util';
import { badRequest } from './api-errors';

/** One RFC 6902 operation. */
interface Operation {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly value?: unknown;
}

type Container = Record<string, unknown> | unknown[];

const tokens = (pointer: string): string[] => {
  if (pointer === '') return [];
  if (!pointer.startsWith('/'))
    throw badRequest(`JSON pointer must start with '/': ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
};

/** The container holding the last token of `pointer`, and that token. */
function parentOf(doc: unknown, pointer: string): [Container, string] {
  const path = tokens(pointer);
  const last = path.pop();
  if (last === undefined) throw badRequest('the root of the document cannot be the target of this operation');
  let at: unknown = doc;
  for (const token of path) {
    at = Array.isArray(at) ? at[Number(token)] : (at as Record<string, unknown> | null)?.[token];
    if (typeof at !== 'object' || at === null)
      throw badRequest(`doc is missing path: ${JSON.stringify(pointer)}: missing value`);
  }
  if (typeof at !== 'object' || at === null)
    throw badRequest(`doc is missing path: ${JSON.stringify(pointer)}`);
  return [at as Container, last];
}

function index(list: unknown[], token: string, forAdd: boolean): number {
  if (forAdd && token === '-') return list.length;
  const i = Number(token);
  if (!/^(0|[1-9]\d*)$/.test(token) || i > list.length || (!forAdd && i === list.length)) {
    throw badRequest(`Unable to access invalid index: ${token}`);
  }
  return i;
}

function get(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  const [parent, token] = parentOf(doc, pointer);
  const value = Array.isArray(parent) ? parent[index(parent, token, false)] : parent[token];
  if (value === undefined) throw badRequest(`doc is missing key: ${JSON.stringify(pointer)}`);
  return value;
}

function remove(doc: unknown, pointer: string): unknown {
  const value = get(doc, pointer);
  const [parent, token] = parentOf(doc, pointer);
  if (Array.isArray(parent)) parent.splice(index(parent, token, false), 1);
  else delete parent[token];
  return value;
}

function add(doc: unknown, pointer: string, value: unknown): unknown {
  if (pointer === '') return value;
  const [parent, token] = parentOf(doc, pointer);
  if (Array.isArray(parent)) parent.splice(index(parent, token, true), 0, value);
  else parent[token] = value;
  return doc;
}

/** Applies a JSON patch (RFC 6902: add, remove, replace, move, copy, test) to a copy of `target`. */
export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw badRequest('a JSON patch must be a list of operations');
  let doc = structuredClone(target);
  for (const raw of operations as Operation[]) {
    const value = structuredClone(raw.value);
    switch (raw.op) {
      case 'add':
        doc = add(doc, raw.path, value);
        break;
      case 'remove':
        remove(doc, raw.path);
        break;
      case 'replace':
        get(doc, raw.path);
        if (raw.path === '') doc = value;
        else {
          remove(doc, raw.path);
          doc = add(doc, raw.path, value);
        }
        break;
      case 'move':
        doc = add(doc, raw.path, remove(doc, raw.from ?? ''));
        break;
      case 'copy':
        doc = add(doc, raw.path, structuredClone(get(doc, raw.from ?? '')));
        break;
      case 'test':
        if (!isDeepStrictEqual(get(doc, raw.path), value))
          throw badRequest(`testing value ${raw.path} failed`);
        break;
      default:
        throw badRequest(`Unexpected kind: ${String(raw.op)}`);
    }
  }
  return doc;
}
