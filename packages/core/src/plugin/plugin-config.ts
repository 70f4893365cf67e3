import type { Logger } from '@kdp/base';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from '../config/z';
import { formatConfigIssues, type ConfigIssue } from '../config/config-error';
import {
  loadConfig,
  validateConfigValue,
  type ConfigTransform,
  type LoadConfigOptions,
} from '../config/load-config';
import { watchConfig, type ConfigWatcher } from '../config/watch-config';
import type { PluginMetrics } from '../metrics/plugin-metrics';
import type { PluginInvocation } from './command-line';
import type { CompatLayer } from './compat/compat-layer';
import type { AnyPluginDefinition } from './define-plugin';

/** A plugin as the command line configures it, with the compat layers' configuration transform. */
export interface ConfiguredPlugin extends PluginInvocation {
  readonly transform: ConfigTransform | undefined;
  /** Chooses this node's file when the configuration is a directory. */
  readonly selectFile?: LoadConfigOptions['selectFile'];
}

/** One plugin's running configuration: its built-in defaults, or a watched file. */
export interface PluginConfig {
  current(): unknown;
  readonly watcher?: ConfigWatcher<unknown>;
}

const schemaOf = (definition: AnyPluginDefinition): z.ZodType =>
  definition.config?.schema ?? z.strictObject({});

const loadOptionsOf = (invocation: ConfiguredPlugin): LoadConfigOptions => ({
  unknownKeys: invocation.definition.config?.unknownKeys ?? 'error',
  ...(invocation.transform !== undefined ? { transform: invocation.transform } : {}),
  ...(invocation.selectFile !== undefined ? { selectFile: invocation.selectFile } : {}),
});

/** Loads a plugin's configuration once: its file, or its defaults through the schema. */
export async function loadPluginConfig(
  invocation: ConfiguredPlugin,
): Promise<{ value: unknown; warnings: readonly ConfigIssue[] }> {
  const { definition } = invocation;
  if (invocation.configFile === undefined) {
    return validateConfigValue(
      '<built-in defaults>',
      definition.config?.defaults ?? {},
      schemaOf(definition),
      loadOptionsOf(invocation),
    );
  }
  return loadConfig(invocation.configFile, schemaOf(definition), loadOptionsOf(invocation));
}

/** Options of {@link watchPluginConfig}. */
export interface WatchPluginConfigOptions {
  readonly invocation: ConfiguredPlugin;
  readonly logger: Logger;
  readonly metrics: PluginMetrics;
  /** Quiet time after a change before the reload (default: watchConfig's). */
  readonly debounceMs: number | undefined;
  /** A new configuration is running. */
  readonly onReload: () => void;
}

/**
 * Loads a plugin's configuration for `serve`: its defaults once, or its file watched and reloaded on changes
 * (logged and counted; a bad reload keeps the running configuration). A bad first load throws (exit 2).
 */
export async function watchPluginConfig(options: WatchPluginConfigOptions): Promise<PluginConfig> {
  const { invocation, logger, metrics } = options;
  const file = invocation.configFile;
  if (file === undefined) {
    const loaded = await loadPluginConfig(invocation);
    logConfigWarnings(logger, '<built-in defaults>', loaded.warnings);
    return { current: () => loaded.value };
  }
  const watcher = await watchConfig({
    file,
    schema: schemaOf(invocation.definition),
    ...loadOptionsOf(invocation),
    signals: null,
    ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
    onChange: (change) => {
      metrics.configReload(true);
      logger.info(
        { config: file, reason: change.reason, ...(change.selected ? { selected: change.selected } : {}) },
        'configuration reloaded',
      );
      logConfigWarnings(logger, file, change.warnings);
      options.onReload();
    },
    onError: (error, reason) => {
      metrics.configReload(false);
      logger.error(
        { config: file, reason, problem: error.message },
        'configuration reload failed; keeping the running configuration',
      );
    },
  });
  logConfigWarnings(logger, file, watcher.warnings);
  if (watcher.selected !== undefined)
    logger.info({ config: file, selected: watcher.selected }, 'configuration chosen for this node');
  return { current: () => watcher.current, watcher };
}

/**
 * A plugin without `--config` whose compat layers name default files (`/etc/pcidp/config.json`) loads the first
 * that exists, as the anchor would; `root` prefixes them (tests).
 */
export async function withDefaultConfigs(
  plugins: readonly PluginInvocation[],
  root: string,
): Promise<PluginInvocation[]> {
  return Promise.all(
    plugins.map(async (invocation) => {
      if (invocation.configFile !== undefined || plugins.length > 1) return invocation;
      for (const path of (invocation.definition.compat ?? []).flatMap(
        (layer: CompatLayer) => layer.defaultConfigPaths ?? [],
      )) {
        const file = join(root, path);
        if ((await stat(file).catch(() => undefined))?.isFile() === true)
          return { ...invocation, configFile: file };
      }
      return invocation;
    }),
  );
}

function logConfigWarnings(logger: Logger, file: string, warnings: readonly ConfigIssue[]): void {
  for (const warning of warnings)
    logger.warn({ config: file, field: warning.path }, formatConfigIssues(file, [warning]));
}
