import { validateResourceName } from '@kdp/api';

/** A generated resource name, or why it cannot be advertised. */
export type ResourceNameResult =
  { readonly ok: true; readonly name: string } | { readonly ok: false; readonly reason: string };

/** Intel's resource domain. */
export const INTEL_FPGA_DOMAIN = 'fpga.intel.com';
/** AMD/Xilinx's resource domain (the plugin's form since 2022). */
export const AMD_FPGA_DOMAIN = 'amd.com';

const HEX32 = /^[0-9a-f]{32}$/;

function checked(name: string): ResourceNameResult {
  const check = validateResourceName(name);
  return check.valid ? { ok: true, name } : { ok: false, reason: `resource name ${name}: ${check.message}` };
}

/**
 * Intel's af-mode name: `fpga.intel.com/af-<if[:3]>.<afu[:3]>.<base64url(ifID‖afuID)>`, compressed by Intel to
 * fit the 63-character name limit, e.g. `fpga.intel.com/af-695.d84.aVKNtusxV3qMNmj5-qCB9thCTcSko8QT-J5DNoP5BAs`.
 */
export function afResourceName(interfaceId: string, afuId: string): ResourceNameResult {
  if (!HEX32.test(interfaceId))
    return { ok: false, reason: `interface id ${JSON.stringify(interfaceId)} is not 32 hex digits` };
  if (!HEX32.test(afuId))
    return { ok: false, reason: `afu id ${JSON.stringify(afuId)} is not 32 hex digits` };
  const packed = Buffer.from(interfaceId + afuId, 'hex').toString('base64url');
  return checked(`${INTEL_FPGA_DOMAIN}/af-${interfaceId.slice(0, 3)}.${afuId.slice(0, 3)}.${packed}`);
}

/** Intel's region-mode name: `fpga.intel.com/region-<32-hex interface id>`. */
export function regionResourceName(interfaceId: string): ResourceNameResult {
  if (!HEX32.test(interfaceId))
    return { ok: false, reason: `interface id ${JSON.stringify(interfaceId)} is not 32 hex digits` };
  return checked(`${INTEL_FPGA_DOMAIN}/region-${interfaceId}`);
}

/**
 * AMD/Xilinx's name: `amd.com/<VBNV>-<timestamp>`, e.g. `amd.com/xilinx_u200_xdma_201830_1-1542252769`;
 * the shell name and timestamp come from the user function's `rom.*` folder.
 */
export function amdResourceName(vbnv: string, timestamp: string): ResourceNameResult {
  if (vbnv === '') return { ok: false, reason: 'shell name (rom VBNV) is empty' };
  if (!/^\d+$/.test(timestamp))
    return { ok: false, reason: `shell timestamp ${JSON.stringify(timestamp)} is not a number` };
  return checked(`${AMD_FPGA_DOMAIN}/${vbnv}-${timestamp}`);
}
