/** Parses a 64-bit error register as the DFL and OPAE drivers print it (`0x0`, `0x8000000000000000`). */
export function parseErrorRegister(text: string): bigint | undefined {
  const match = /^(?:0[xX])?([0-9a-fA-F]{1,16})$/.exec(text.trim());
  return match ? BigInt(`0x${match[1] as string}`) : undefined;
}
