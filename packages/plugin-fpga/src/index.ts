// Public API of @kdp/plugin-fpga: the plugin definition (run by its binary and by kdp-device-plugins), FPGA
// discovery from sysfs, resource naming and planning, allocation and region programming.
export { fpgaPlugin } from './plugin';
export { COMMAND_PLACEHOLDERS, fpgaConfigSchema, MAX_PROGRAMMING_TIMEOUT_MS } from './config';
export type { FpgaConfig, ProgrammingRule } from './config';
export { scanFpgas } from './scan/scan-fpgas';
export type { FpgaScan } from './scan/scan-fpgas';
export type { IntelPort } from './scan/scan-intel-ports';
export type { AmdCard } from './scan/scan-amd-cards';
export { parseFpgaId } from './scan/parse-fpga-id';
export { afResourceName, amdResourceName, regionResourceName } from './resources/resource-names';
export { planResources } from './resources/plan-resources';
export type { FpgaPayload, FpgaResourcePlan } from './resources/plan-resources';
export { allocateFpgas } from './allocate/allocate-fpgas';
export { createRegionProgrammer } from './allocate/region-programmer';
export type { RegionProgrammer } from './allocate/region-programmer';
