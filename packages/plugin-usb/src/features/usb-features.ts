import { resourceCountLabels, type FeatureLabels, type ResourceSet } from '@kdp/core/plugin';

/**
 * The USB plugin's node feature labels, per resource with devices: `<resource>.present=true` and `<resource>.count`
 * (`example.com/yubikey.present=true`); a configured resource with no device now gets neither.
 */
export function usbFeatures(set: ResourceSet): FeatureLabels {
  const present = { resources: set.resources.filter((spec) => spec.devices.length > 0) };
  return {
    ...Object.fromEntries(present.resources.map((spec) => [`${spec.name}.present`, 'true'])),
    ...resourceCountLabels(present),
  };
}
