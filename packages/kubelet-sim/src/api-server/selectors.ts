import { badRequest } from './api-errors';

/** A parsed field or label selector: every requirement must hold. */
export type Selector = (values: (key: string) => string | undefined) => boolean;

/** Splits on commas outside parentheses. */
function terms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '') out.push(current.trim());
  return out;
}

/**
 * Parses a field selector (`a=b`, `a==b`, `a!=b`, comma-separated) over the given supported fields; an
 * unsupported field is a 400, as kube-apiserver answers `field label not supported: …`.
 */
export function parseFieldSelector(text: string | null, supported: readonly string[]): Selector {
  if (text === null || text.trim() === '') return () => true;
  const requirements = terms(text).map((term) => {
    const match = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (match === null) throw badRequest(`invalid field selector: ${JSON.stringify(term)}`);
    const [, key = '', op, value = ''] = match;
    if (!supported.includes(key)) throw badRequest(`field label not supported: ${key}`);
    return (get: (key: string) => string | undefined): boolean =>
      op === '!=' ? (get(key) ?? '') !== value : (get(key) ?? '') === value;
  });
  return (get) => requirements.every((r) => r(get));
}

/** Parses a label selector: `a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x,y)`. */
export function parseLabelSelector(text: string | null): Selector {
  if (text === null || text.trim() === '') return () => true;
  const requirements = terms(text).map((term): Selector => {
    let match = /^([^!=\s]+)\s+(in|notin)\s+\((.*)\)$/.exec(term);
    if (match !== null) {
      const [, key = '', op, list = ''] = match;
      const values = list.split(',').map((v) => v.trim());
      return (get) => {
        const value = get(key);
        return op === 'in'
          ? value !== undefined && values.includes(value)
          : value === undefined || !values.includes(value);
      };
    }
    match = /^([^!=\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (match !== null) {
      const [, key = '', op, value = ''] = match;
      return (get) => (op === '!=' ? get(key) !== value : get(key) === value);
    }
    if (/^![^!=\s]+$/.test(term)) return (get) => get(term.slice(1)) === undefined;
    if (/^[^!=\s(),]+$/.test(term)) return (get) => get(term) !== undefined;
    throw badRequest(`unable to parse requirement: ${JSON.stringify(term)}`);
  });
  return (get) => requirements.every((r) => r(get));
}
