/** A parsed semantic version (semver.org 2.0.0), as the Kubernetes CEL `semver` library holds it. */
export interface Semver {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  /** Pre-release identifiers (numeric ones as bigint). */
  readonly pre: readonly (string | bigint)[];
  /** Build metadata, which takes no part in comparisons. */
  readonly build: readonly string[];
}

const numeric = /^(0|[1-9]\d*)$/;
const identifier = /^[0-9A-Za-z-]+$/;

const parseNumber = (text: string | undefined, what: string): bigint => {
  if (text === undefined || !numeric.test(text))
    throw new Error(`invalid ${what} version: ${JSON.stringify(text ?? '')}`);
  return BigInt(text);
};

/** Rewrites a loose version ("v1", "1.2", "01.2.3") into the strict form, as `semver(s, true)` does. */
function normalize(text: string): string {
  const trimmed = text.startsWith('v') ? text.slice(1) : text;
  const cut = trimmed.search(/[-+]/);
  const core = cut === -1 ? trimmed : trimmed.slice(0, cut);
  const rest = cut === -1 ? '' : trimmed.slice(cut);
  const parts = core.split('.');
  while (parts.length < 3) parts.push('0');
  const cleaned = parts.map((p) => (/^\d+$/.test(p) ? p.replace(/^0+(?=\d)/, '') : p));
  return cleaned.join('.') + rest;
}

/** Parses a strict semantic version; `loose` accepts a "v" prefix, missing parts and leading zeros. */
export function parseSemver(text: string, loose = false): Semver {
  const input = loose ? normalize(text) : text;
  const plus = input.indexOf('+');
  const build = plus === -1 ? [] : input.slice(plus + 1).split('.');
  const head = plus === -1 ? input : input.slice(0, plus);
  const dash = head.indexOf('-');
  const core = (dash === -1 ? head : head.slice(0, dash)).split('.');
  if (core.length !== 3) throw new Error(`no major, minor and patch version in ${JSON.stringify(text)}`);
  const pre = dash === -1 ? [] : head.slice(dash + 1).split('.');
  for (const part of [...pre, ...build]) {
    if (!identifier.test(part))
      throw new Error(`invalid identifier ${JSON.stringify(part)} in ${JSON.stringify(text)}`);
  }
  return {
    major: parseNumber(core[0], 'major'),
    minor: parseNumber(core[1], 'minor'),
    patch: parseNumber(core[2], 'patch'),
    pre: pre.map((p) => {
      if (!/^\d+$/.test(p)) return p;
      if (!numeric.test(p)) throw new Error(`numeric pre-release identifier ${p} has a leading zero`);
      return BigInt(p);
    }),
    build,
  };
}

const sign = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

const comparePre = (a: string | bigint, b: string | bigint): number => {
  if (typeof a === 'bigint' && typeof b === 'bigint') return sign(a, b);
  if (typeof a === 'bigint') return -1;
  if (typeof b === 'bigint') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
};

/** -1, 0 or 1 by semver precedence (build metadata ignored). */
export function compareSemver(a: Semver, b: Semver): number {
  const core = sign(a.major, b.major) || sign(a.minor, b.minor) || sign(a.patch, b.patch);
  if (core !== 0) return core;
  if (a.pre.length === 0 || b.pre.length === 0)
    return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const c = comparePre(a.pre[i] as string | bigint, b.pre[i] as string | bigint);
    if (c !== 0) return c;
  }
  return sign(BigInt(a.pre.length), BigInt(b.pre.length));
}

/** The version without build metadata: equal precedence, equal text. */
export const semverKey = (v: Semver): string =>
  `${v.major}.${v.minor}.${v.patch}${v.pre.length > 0 ? `-${v.pre.join('.')}` : ''}`;
