/**
 * The plugin runtime: a device plugin is a definition (`definePlugin`) and `runPlugin(definition)` is its whole
 * `main.ts`. The runtime owns the command line, configuration reloads, scan scheduling, the resource diff,
 * device memory, metrics, signals and `discover`; the lifecycle below it is `@kdp/core`.
 *
 * @packageDocumentation
 * @module @kdp/core/plugin
 */

export { definePlugin, DEVICE_LIST_STRATEGIES } from './define-plugin';
export type {
  AnyPluginDefinition,
  ChangeProbe,
  DeviceListStrategy,
  HealthPolicy,
  PluginContext,
  PluginDefinition,
  ProbePaths,
  ResourceSet,
  ResourceSpec,
  SetupContext,
  WatchSpec,
} from './define-plugin';
export { featureLabelProblem, resourceCountLabels, toLabelValue } from './feature-labels';
export type { FeatureLabels } from './feature-labels';
export { flag, formatDuration, parseDuration } from './flags';
export type {
  BooleanFlagOptions,
  DefaultedValue,
  DurationFlagOptions,
  EnumFlagOptions,
  Flag,
  FlagKind,
  FlagSpecs,
  FlagValues,
  ListFlagOptions,
  NumberFlagOptions,
  StringFlagOptions,
} from './flags';
export { runPlugin, runPlugins } from './run-plugin';
export { anchorInvocation } from './anchor-invocation';
export { DEVICE_PLUGIN_MODE } from './serve-mode';
export type { ResourceHost, RunOptions, ServeMode, ServeModeBackend, ServeModeContext } from './serve-mode';
export { cdiEditsOf } from './cdi-publisher';
export type { MultiPluginProgram, ProcessSignals, RunIo, TextSink } from './run-plugin';
export { checkDirectories, formatHelp, parseCommandLine } from './command-line';
export type { Command, CommonFlags, PluginInvocation, Program } from './command-line';
export { ExitCode, UsageError } from './exit-code';
export type { UnknownKeyPolicy } from '../config/load-config';
export { toDiscoverDocument } from './discover-result';
export type {
  DiscoverDocument,
  DiscoveredDevice,
  DiscoveredDeviceSpec,
  DiscoveredMount,
  DiscoveredResource,
  DiscoverResult,
  ExcludedDevice,
} from './discover-result';
export { formatDiscoverTable } from './format-discover-table';
export { isRefused, klogFlags, klogVerbosityLevel, parseGoBool, parseGoInt } from './compat';
export type {
  AcceptedCompatOption,
  CompatConfigFormat,
  CompatConversion,
  CompatLayer,
  CompatOption,
  CompatTarget,
  RefusedCompatOption,
} from './compat';
