import type { Logger } from '@kdp/base';
import type { AnyPluginDefinition, ResourceSet } from './define-plugin';
import { createFeatureFile } from './feature-file';
import { checkFeatureLabels } from './feature-labels';
import type { MutablePluginContext } from './plugin-context';
import { createWarningLog } from './warning-log';

/** A plugin's node feature labels, written to its NFD feature file `kdp-<name>`. */
export interface FeaturePublisher {
  /** Writes the labels of a scan's set when they changed; a label NFD would refuse is dropped with a warning. */
  publish(set: ResourceSet, ctx: MutablePluginContext): Promise<void>;
  /** Removes the feature file; never throws. */
  remove(): Promise<void>;
}

/**
 * The feature publisher of a plugin: writes what its `features` hook returns to `<dir>/kdp-<name>`; does nothing
 * without a directory (`--nfd-features-dir`) or a hook.
 */
export function createFeaturePublisher(
  definition: AnyPluginDefinition,
  dir: string | undefined,
  logger: Logger,
): FeaturePublisher {
  const features = definition.features;
  if (dir === undefined || features === undefined)
    return { publish: async () => undefined, remove: async () => undefined };
  const file = createFeatureFile({
    dir,
    name: `kdp-${definition.name}`,
    comment: `${definition.binary} ${definition.version}: node feature labels, removed when it stops`,
  });
  const labelWarnings = createWarningLog((warning) => logger.warn({}, warning));
  return {
    async publish(set, ctx) {
      const checked = checkFeatureLabels(await features(set, ctx));
      labelWarnings.report(checked.problems);
      if (await file.write(checked.labels))
        logger.info(
          { file: file.path, labels: Object.keys(checked.labels).length },
          'node feature labels written',
        );
    },
    remove: () =>
      file
        .remove()
        .catch((error: unknown) => logger.warn({ err: error }, 'cannot remove the node feature file')),
  };
}
