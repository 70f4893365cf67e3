/**
 * The plugin runtime: a device plugin is a definition (`definePlugin`) and `runPlugin(definition)` is its whole
 * `main.ts`. The runtime owns the command line, configuration reloads, scan scheduling, the resource diff,
 * device memory, metrics, signals and `discover`; the lifecycle below it is `@kdp/core`.
 *
 * @packageDocumentation
 * @module @kdp/core/plugin
 */

export { definePlugin } from './define-plugin';
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
export { toLabelValue } from './feature-labels';
export { resourceCountLabels } from './resource-count-labels';
export type { FeatureLabels } from './feature-labels';
export { flag } from './flags';
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
export type { MultiPluginProgram } from './run-plugin';
export type { ProcessSignals, RunIo, TextSink } from './run-io';
export type { ResourceHost, RunOptions, ServeMode, ServeModeBackend, ServeModeContext } from './serve-mode';
export type {
  ModeDiscoverInput,
  ModeDiscoverPool,
  ModeDiscoverResource,
  ModeDiscoverResult,
} from './mode-discover';
export type { ProcessServices } from './process-services';
export { createDevicePluginServeMode } from './device-plugin-serve-mode';
export { requireDirectories } from './require-directories';
export { cdiEditsOf } from './cdi-publisher';
export type { CommonFlags } from './common-flags';
export { ExitCode, UsageError } from './exit-code';
export type { UnknownKeyPolicy } from '../config/load-config';
export type {
  DiscoverDocument,
  DiscoveredDeviceSpec,
  DiscoveredMount,
  ExcludedDevice,
} from './discover-result';
export { compat, isGoTrue, isRefused, klogFlags, parseGoBool, parseGoInt, useCdiOption } from './compat';
export type {
  AcceptedCompatOption,
  CompatConfigFormat,
  CompatConversion,
  CompatLayer,
  CompatOption,
  CompatOptionKind,
  CompatTarget,
  RefusedCompatOption,
  ToFlagOptions,
} from './compat';
export { anchorInvocation } from './anchor-invocation';
