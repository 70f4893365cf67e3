// Debian version comparison, dpkg's algorithm (lib/dpkg/version.c): epoch, then upstream version, then
// Debian revision, each compared as alternating non-digit and digit runs, where `~` sorts before
// everything (even the end of the string), letters before other characters, and digit runs numerically.

/**
 * Splits a Debian version into `{ epoch, upstream, revision }`; throws an Error naming the version when it
 * is not one (empty, bad epoch, characters dpkg rejects, upstream not starting with a digit).
 */
export function parseVersion(version) {
  const bad = () => new Error(`not a Debian version: ${JSON.stringify(String(version))}`);
  if (typeof version !== 'string' || !/^[0-9A-Za-z.+~:-]+$/.test(version)) throw bad();
  const colon = version.indexOf(':');
  const epochText = colon === -1 ? '0' : version.slice(0, colon);
  const rest = colon === -1 ? version : version.slice(colon + 1);
  const dash = rest.lastIndexOf('-');
  const upstream = dash === -1 ? rest : rest.slice(0, dash);
  const revision = dash === -1 ? '' : rest.slice(dash + 1);
  if (!/^\d{1,9}$/.test(epochText) || !/^\d/.test(upstream) || upstream.includes(':')) throw bad();
  if (dash !== -1 && !/^[0-9A-Za-z.+~]+$/.test(revision)) throw bad();
  return { epoch: Number(epochText), upstream, revision };
}

/** dpkg's character order for non-digit runs: `~` first, then the end of the run, letters, the rest. */
function order(char) {
  if (char === undefined) return 0;
  if (char === '~') return -1;
  if (/[A-Za-z]/.test(char)) return char.charCodeAt(0);
  return char.charCodeAt(0) + 256;
}

const isDigit = (char) => char !== undefined && char >= '0' && char <= '9';

/** dpkg's verrevcmp: compares one upstream version or revision. */
function compareParts(a, b) {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isDigit(a[i])) || (j < b.length && !isDigit(b[j]))) {
      const ac = isDigit(a[i]) ? undefined : a[i];
      const bc = isDigit(b[j]) ? undefined : b[j];
      const diff = order(ac) - order(bc);
      if (diff !== 0) return Math.sign(diff);
      i += 1;
      j += 1;
    }
    while (a[i] === '0') i += 1;
    while (b[j] === '0') j += 1;
    let firstDiff = 0;
    while (isDigit(a[i]) && isDigit(b[j])) {
      if (firstDiff === 0) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i += 1;
      j += 1;
    }
    if (isDigit(a[i])) return 1;
    if (isDigit(b[j])) return -1;
    if (firstDiff !== 0) return Math.sign(firstDiff);
  }
  return 0;
}

/** Compares two Debian versions as dpkg does: negative, 0 or positive (-1, 0, 1). */
export function compareVersions(a, b) {
  const left = parseVersion(a);
  const right = parseVersion(b);
  if (left.epoch !== right.epoch) return left.epoch > right.epoch ? 1 : -1;
  return compareParts(left.upstream, right.upstream) || compareParts(left.revision, right.revision);
}
