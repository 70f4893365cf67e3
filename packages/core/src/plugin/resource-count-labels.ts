import type { ResourceSet } from './define-plugin';

/** `<resource>.count` for every resource of a set: how many devices it advertises (`example.com/dongle.count=2`). */
export function resourceCountLabels(set: ResourceSet): Record<string, string> {
  return Object.fromEntries(set.resources.map((spec) => [`${spec.name}.count`, String(spec.devices.length)]));
}
