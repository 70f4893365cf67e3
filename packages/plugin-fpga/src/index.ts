// Public API of @kdp/plugin-fpga: discovery, naming, programming and the fpga-device-plugin CLI.

export { runFpgaCli, FPGA_PLUGIN_VERSION } from './fpga-cli';
export type { FpgaCliOptions } from './fpga-cli';
export { fpgaConfigSchema, COMMAND_PLACEHOLDERS, MAX_PROGRAMMING_TIMEOUT_MS } from './fpga-config';
export type { FpgaConfig, ProgrammingRule } from './fpga-config';
export { parseFpgaId, describeFpgaIdProblem } from './fpga-id';
export type { FpgaIdProblem, FpgaIdRead } from './fpga-id';
export type { AmdCard, FpgaPciInfo, FpgaScan, IntelLayout, IntelPort } from './fpga-model';
export {
  afResourceName,
  amdResourceName,
  regionResourceName,
  AMD_FPGA_DOMAIN,
  INTEL_FPGA_DOMAIN,
} from './resource-names';
export type { ResourceNameResult } from './resource-names';
export { scanFpgas } from './scan-fpgas';
export type { ScanFpgasOptions } from './scan-fpgas';
export { scanIntelPorts } from './scan-intel-ports';
export type { IntelScan, ScanIntelOptions } from './scan-intel-ports';
export { scanAmdCards, AMD_FPGA_VENDORS } from './scan-amd-cards';
export type { AmdScan, ScanAmdOptions } from './scan-amd-cards';
export { buildInventory } from './build-inventory';
export type { FpgaInventory, FpgaPayload, InventoryResource } from './build-inventory';
export { fpgaAllocation } from './fpga-allocation';
export { discoverFpgas } from './discover-fpgas';
export { createRegionProgrammer, fillPlaceholders } from './region-programmer';
export type { ProgramOutcome, RegionProgrammer, RegionProgrammerOptions } from './region-programmer';
export { runProgrammingCommand, outputTail } from './run-programming-command';
export type { CommandOutcome, RunCommandOptions } from './run-programming-command';
export { createFpgaResourceSet } from './fpga-resource-set';
export type { FpgaResourceSet, FpgaResourceSetOptions } from './fpga-resource-set';
export { serveFpgas } from './serve-fpgas';
export { parseErrorRegister } from './error-register';
export { devNodeExists } from './dev-node-check';
