export { applyCompat, applyConfigPatches } from './apply-compat';
export type { ApplyCompatOptions, CompatResult, ConfigPatch } from './apply-compat';
export { createCompatConfigTransform } from './compat-config';
export { compat, useCdiOption } from './compat-builders';
export type { CompatOptionKind, ToFlagOptions } from './compat-builders';
export { isGoTrue, isRefused, parseGoBool, parseGoInt } from './compat-layer';
export type {
  AcceptedCompatOption,
  CompatConfigFormat,
  CompatConversion,
  CompatLayer,
  CompatOption,
  CompatTarget,
  RefusedCompatOption,
} from './compat-layer';
export { formatCompatHelp } from './format-compat-help';
export { klogFlags, klogVerbosityLevel } from './klog-flags';
