/** Node feature labels as a plugin's `features` hook returns them: label name → value. */
export type FeatureLabels = Readonly<Record<string, string>>;

/** A DNS subdomain (the label name's prefix), at most 253 characters. */
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A label name after the prefix, and a non-empty label value: at most 63 of these characters. */
const SEGMENT = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
/** NFD refuses these namespaces (and their subdomains) except the two feature namespaces below. */
const DENIED = ['kubernetes.io', 'k8s.io'];
const ALLOWED = ['feature.node.kubernetes.io', 'profile.node.kubernetes.io'];

const within = (prefix: string, domain: string): boolean =>
  prefix === domain || prefix.endsWith(`.${domain}`);

/**
 * Why a label cannot go into a Node Feature Discovery feature file (Kubernetes' label rules, a prefix required,
 * and the namespaces nfd-master refuses); undefined when it can.
 */
export function featureLabelProblem(name: string, value: string): string | undefined {
  const slash = name.indexOf('/');
  if (slash < 0) return 'a label name needs a prefix (`example.com/name`)';
  const prefix = name.slice(0, slash);
  const local = name.slice(slash + 1);
  if (prefix.length > 253 || !PREFIX.test(prefix))
    return `prefix ${JSON.stringify(prefix)} is not a DNS subdomain`;
  if (DENIED.some((domain) => within(prefix, domain)) && !ALLOWED.some((domain) => within(prefix, domain)))
    return `prefix ${prefix} is reserved for Kubernetes (NFD refuses it)`;
  if (local.length > 63 || !SEGMENT.test(local))
    return `name ${JSON.stringify(local)} is not 1–63 letters, digits, '-', '_' or '.', starting and ending alphanumeric`;
  if (value.length > 63 || (value !== '' && !SEGMENT.test(value)))
    return `value ${JSON.stringify(value.slice(0, 80))} is not 0–63 letters, digits, '-', '_' or '.', starting and ending alphanumeric`;
  return undefined;
}

/** Splits labels into those a feature file can hold and one problem line for each that it cannot. */
export function checkFeatureLabels(labels: FeatureLabels): {
  readonly labels: FeatureLabels;
  readonly problems: readonly string[];
} {
  const good: Record<string, string> = {};
  const problems: string[] = [];
  for (const [name, value] of Object.entries(labels)) {
    const problem = featureLabelProblem(name, value);
    if (problem === undefined) good[name] = value;
    else problems.push(`node feature label ${JSON.stringify(name.slice(0, 300))} dropped: ${problem}`);
  }
  return { labels: good, problems };
}

/**
 * Free text (a product name) as a label value: each run of characters a value cannot hold becomes `replacement`,
 * the ends are trimmed to alphanumerics and the result cut to 63 characters (`NVIDIA H100 80GB HBM3` →
 * `NVIDIA-H100-80GB-HBM3`); empty when nothing is left.
 */
export function toLabelValue(text: string, replacement: '-' | '_' | '.' = '-'): string {
  const trim = (s: string): string => s.replace(/^[^A-Za-z0-9]+/, '').replace(/[^A-Za-z0-9]+$/, '');
  return trim(trim(text.replace(/[^-A-Za-z0-9_.]+/g, replacement)).slice(0, 63));
}
