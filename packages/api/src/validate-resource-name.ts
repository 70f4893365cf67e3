/** The outcome of {@link validateResourceName}. */
export type ResourceNameValidation =
  | { readonly valid: true }
  | {
      readonly valid: false;
      /** The kubelet's own error text for Register: `the ResourceName "<name>" is invalid`. */
      readonly message: string;
      /** Which rule the name breaks, for humans (the kubelet itself does not say). */
      readonly reason: string;
    };

const requestsPrefix = 'requests.';
const defaultNamespacePrefix = 'kubernetes.io/';
const dns1123SubdomainMaxLength = 253;
const qualifiedNameMaxLength = 63;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/**
 * Checks a resource name exactly as the kubelet's Register does (`IsExtendedResourceName`), returning the
 * kubelet's own message for a rejection.
 */
export function validateResourceName(name: string): ResourceNameValidation {
  const reason = extendedResourceNameProblem(name);
  if (reason === undefined) return { valid: true };
  return { valid: false, message: `the ResourceName ${goQuote(name)} is invalid`, reason };
}

function extendedResourceNameProblem(name: string): string | undefined {
  // IsNativeResource: no "/" at all, or the "kubernetes.io/" substring anywhere.
  if (!name.includes('/')) return 'it has no "/": names without a domain prefix are native resources';
  if (name.includes(defaultNamespacePrefix)) {
    return `it contains "${defaultNamespacePrefix}", which is reserved for native resources`;
  }
  if (name.startsWith(requestsPrefix)) return `it starts with "${requestsPrefix}", the quota prefix`;
  // The kubelet validates "requests." + name as a qualified name.
  return qualifiedNameProblem(requestsPrefix + name);
}

function qualifiedNameProblem(value: string): string | undefined {
  const parts = value.split('/');
  if (parts.length !== 2) return 'it must contain exactly one "/"';
  const [prefix = '', part = ''] = parts;
  const domain = prefix.slice(requestsPrefix.length);
  if (prefix.length > dns1123SubdomainMaxLength) {
    return `the domain prefix is ${domain.length} characters; at most ${dns1123SubdomainMaxLength - requestsPrefix.length} are allowed`;
  }
  if (!dns1123Subdomain.test(prefix)) {
    return `the domain prefix ${goQuote(domain)} is not a lowercase DNS-1123 subdomain`;
  }
  if (part.length === 0) return 'the name after "/" is empty';
  if (part.length > qualifiedNameMaxLength) {
    return `the name after "/" is ${part.length} characters; at most ${qualifiedNameMaxLength} are allowed`;
  }
  if (!qualifiedNamePart.test(part)) {
    return 'the name after "/" must be alphanumerics, "-", "_" or ".", starting and ending with an alphanumeric';
  }
  return undefined;
}

const goEscapes: Readonly<Record<string, string>> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** Quotes a string as Go's `%q` does, so messages match the kubelet's byte for byte. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const escape = goEscapes[ch];
    if (escape !== undefined) {
      out += escape;
      continue;
    }
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0x80 && code <= 0x9f) out += `\\u00${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
