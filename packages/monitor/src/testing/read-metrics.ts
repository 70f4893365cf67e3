import type { Registry } from 'prom-client';
import { parsePrometheusText, type PrometheusSample } from '../parse-prometheus-text';

/** The samples of `name` in the registry's exposition. */
export async function samplesOf(registry: Registry, name: string): Promise<PrometheusSample[]> {
  return parsePrometheusText(await registry.metrics()).samples.filter((s) => s.name === name);
}

/** Plain-object copies of the samples' labels and values, for toEqual. */
export function plain(samples: PrometheusSample[]): Array<{ labels: Record<string, string>; value: number }> {
  return samples.map((s) => ({ labels: { ...s.labels }, value: s.value }));
}
