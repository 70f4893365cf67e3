/** One RFC 6902 operation (the subset kustomize patches use). */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'test';
  path: string;
  value?: unknown;
}

type Container = Record<string, unknown> | unknown[];

function decodePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new Error(`JSON patch path "${path}" must start with "/"`);
  return path
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function child(container: Container, token: string, path: string): unknown {
  if (Array.isArray(container)) {
    const index = Number(token);
    if (!Number.isInteger(index) || index < 0 || index >= container.length) {
      throw new Error(`JSON patch path "${path}": no element ${token}`);
    }
    return container[index];
  }
  if (!Object.prototype.hasOwnProperty.call(container, token)) {
    throw new Error(`JSON patch path "${path}": no member "${token}"`);
  }
  return container[token];
}

function asContainer(value: unknown, path: string): Container {
  if (typeof value !== 'object' || value === null)
    throw new Error(`JSON patch path "${path}": parent is not a container`);
  return value as Container;
}

/** Applies RFC 6902 operations to a deep copy of `document` and returns the copy; throws on a bad path. */
export function applyJsonPatch<T>(document: T, operations: readonly JsonPatchOperation[]): T {
  const root = { value: structuredClone(document) as unknown };
  for (const operation of operations) {
    const tokens = ['value', ...decodePointer(operation.path)];
    const last = tokens.pop() as string;
    let parent: Container = root as unknown as Container;
    for (const token of tokens) parent = asContainer(child(parent, token, operation.path), operation.path);
    switch (operation.op) {
      case 'add':
        if (Array.isArray(parent)) {
          const index = last === '-' ? parent.length : Number(last);
          if (!Number.isInteger(index) || index < 0 || index > parent.length) {
            throw new Error(`JSON patch path "${operation.path}": cannot insert at ${last}`);
          }
          parent.splice(index, 0, structuredClone(operation.value));
        } else {
          parent[last] = structuredClone(operation.value);
        }
        break;
      case 'replace':
        child(parent, last, operation.path);
        if (Array.isArray(parent)) parent[Number(last)] = structuredClone(operation.value);
        else parent[last] = structuredClone(operation.value);
        break;
      case 'remove':
        child(parent, last, operation.path);
        if (Array.isArray(parent)) parent.splice(Number(last), 1);
        else delete parent[last];
        break;
      case 'test':
        if (JSON.stringify(child(parent, last, operation.path)) !== JSON.stringify(operation.value)) {
          throw new Error(`JSON patch test failed at "${operation.path}"`);
        }
        break;
      default:
        throw new Error(`JSON patch op "${String((operation as { op: unknown }).op)}" is not supported`);
    }
  }
  return root.value as T;
}
