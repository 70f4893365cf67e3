import { ConfigError, type ConfigIssue } from '../../config/config-error';
import type { ConfigTransform } from '../../config/load-config';
import { applyConfigPatches, type ConfigPatch } from './apply-compat';
import type { CompatLayer } from './compat-layer';

/**
 * The configuration transform of a plugin's compat layers: a document in an anchor's format is converted to
 * ours (its errors reject the load naming file and field, its warnings are kept), then the anchors' flags and
 * variables set their keys. A document in our own format passes through unconverted.
 */
export function createCompatConfigTransform(
  layers: readonly CompatLayer[],
  patches: readonly ConfigPatch[],
): ConfigTransform | undefined {
  const formats = layers.filter((layer) => layer.configFormat !== undefined);
  if (formats.length === 0 && patches.length === 0) return undefined;
  return (input, file) => {
    const warnings: ConfigIssue[] = [];
    let value = input;
    const layer = formats.find((candidate) => candidate.configFormat?.detect(input) === true);
    if (layer?.configFormat !== undefined) {
      const converted = layer.configFormat.convert(input);
      if (converted.errors !== undefined && converted.errors.length > 0) {
        throw new ConfigError(
          file,
          converted.errors.map((issue) => ({
            ...issue,
            message: `${issue.message} (${layer.anchor} format)`,
          })),
        );
      }
      warnings.push(...(converted.warnings ?? []));
      value = converted.config;
    }
    return {
      input: applyConfigPatches(value, patches),
      warnings,
      ...(layer ? { anchor: layer.anchor } : {}),
    };
  };
}
