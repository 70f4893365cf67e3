import { parsePrometheusText } from '../parse-prometheus-text';

const nonBaseUnits =
  /_(milliseconds|microseconds|nanoseconds|ms|us|ns|minutes|hours|days|kilobytes|megabytes|gigabytes|kib|mib|gib|kb|mb|gb|percent|celsius_milli)(_total)?$/;

/**
 * Problems with the metric and label names of an exposition, by the Prometheus naming rules and the
 * Kubernetes instrumentation guidelines: snake_case, a `prefix`, base units, `_total` exactly on counters,
 * HELP and TYPE on every family, label names valid and not reserved.
 */
export function metricNamingProblems(exposition: string, prefix: string): string[] {
  const problems: string[] = [];
  const types = new Map<string, string>();
  const helps = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[1] && type[2]) types.set(type[1], type[2]);
    const help = /^# HELP (\S+) \S/.exec(line);
    if (help?.[1]) helps.add(help[1]);
  }
  for (const [name, type] of types) {
    if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(name))
      problems.push(`${name}: not snake_case [a-z0-9_] (colons are for recording rules)`);
    if (!name.startsWith(prefix)) problems.push(`${name}: lacks the prefix ${prefix}`);
    if (type === 'counter' && !name.endsWith('_total')) problems.push(`${name}: counter without _total`);
    if (type !== 'counter' && name.endsWith('_total')) problems.push(`${name}: ${type} ending in _total`);
    if (nonBaseUnits.test(name)) problems.push(`${name}: not in base units (seconds, bytes)`);
    if (name.endsWith('_info') && type !== 'gauge') problems.push(`${name}: _info must be a gauge`);
    if (!['counter', 'gauge', 'histogram', 'summary'].includes(type))
      problems.push(`${name}: unknown type ${type}`);
    if (!helps.has(name)) problems.push(`${name}: no HELP`);
  }
  const { samples, errors } = parsePrometheusText(exposition);
  problems.push(...errors);
  for (const sample of samples) {
    const family = types.has(sample.name) ? sample.name : sample.name.replace(/_(bucket|sum|count)$/, '');
    const type = types.get(family);
    if (type === undefined) problems.push(`${sample.name}: sample without TYPE`);
    for (const label of Object.keys(sample.labels)) {
      if (!/^[a-z][a-z0-9_]*$/.test(label)) problems.push(`${sample.name}: label ${label} not snake_case`);
      if (label === 'le' && type !== 'histogram')
        problems.push(`${sample.name}: label le outside a histogram`);
      if (label === 'quantile' && type !== 'summary')
        problems.push(`${sample.name}: label quantile outside a summary`);
    }
    if (family.endsWith('_info') && sample.value !== 1)
      problems.push(`${sample.name}: _info value must be 1`);
  }
  return [...new Set(problems)];
}
