/** Why an FPGA ID read from sysfs cannot be used in a resource name. */
export type FpgaIdProblem = 'missing' | 'empty' | 'not-hex';

/** A parsed 128-bit FPGA ID (interface ID or AFU ID): 32 lower-case hex digits, or why it is not one. */
export type FpgaIdRead =
  | { readonly ok: true; readonly id: string; readonly allOnes: boolean }
  | { readonly ok: false; readonly problem: FpgaIdProblem; readonly text?: string };

const HEX32 = /^[0-9a-f]{32}$/;

/**
 * Parses an `afu_id`, `interface_id` or `compat_id` attribute. The kernel prints 32 hex digits; some OPAE
 * releases print a UUID with dashes or a `0x` prefix, which are accepted and normalized. All-`f` means a
 * crashed or unconfigured port (Intel marks such devices unhealthy).
 */
export function parseFpgaId(text: string | undefined): FpgaIdRead {
  if (text === undefined) return { ok: false, problem: 'missing' };
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, problem: 'empty', text: trimmed };
  const normalized = trimmed.toLowerCase().replace(/^0x/, '').replace(/-/g, '');
  if (!HEX32.test(normalized)) return { ok: false, problem: 'not-hex', text: trimmed.slice(0, 80) };
  return { ok: true, id: normalized, allOnes: /^f{32}$/.test(normalized) };
}

/** Words for an ID problem, for `excluded` reasons and warnings. */
export function describeFpgaIdProblem(what: string, read: Exclude<FpgaIdRead, { ok: true }>): string {
  switch (read.problem) {
    case 'missing':
      return `${what} is missing`;
    case 'empty':
      return `${what} is empty`;
    default:
      return `${what} ${JSON.stringify(read.text)} is not 32 hex digits`;
  }
}
