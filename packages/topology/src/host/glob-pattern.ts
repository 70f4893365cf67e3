/** Options of {@link globToRegExp}. */
export interface GlobOptions {
  /** `*` and `?` do not match this character (`/` for paths); default none. */
  readonly separator?: string;
  readonly ignoreCase?: boolean;
}

const escape = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/**
 * Compiles a shell-style glob (`*`, `?`, `[abc]`, `[a-z]`, `[!x]`, `\` escapes) into an anchored RegExp.
 * Anything else is literal; an unclosed `[` is a literal `[`. Never throws.
 */
export function globToRegExp(pattern: string, options: GlobOptions = {}): RegExp {
  const any = options.separator === undefined ? '[\\s\\S]' : `[^${escape(options.separator)}]`;
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '*') out += `${any}*`;
    else if (c === '?') out += any;
    else if (c === '\\' && i + 1 < pattern.length) out += escape(pattern.charAt(++i));
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) {
        out += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      const parts: string[] = [];
      for (let j = 0; j < body.length; j++) {
        const from = body.charAt(j);
        if (body.charAt(j + 1) === '-' && j + 2 < body.length) {
          const to = body.charAt(j + 2);
          if (from <= to) parts.push(`${escape(from)}-${escape(to)}`);
          j += 2;
        } else parts.push(escape(from));
      }
      out += parts.length === 0 ? (negate ? any : '(?!)') : `[${negate ? '^' : ''}${parts.join('')}]`;
      i = close;
    } else out += escape(c);
  }
  return new RegExp(`^${out}$`, options.ignoreCase === true ? 'i' : '');
}

/** Whether a pattern contains glob syntax (otherwise it is a plain literal). */
export function hasGlobSyntax(pattern: string): boolean {
  return /[*?[\\]/.test(pattern);
}
