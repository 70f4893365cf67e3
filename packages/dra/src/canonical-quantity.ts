const quantityRe = /^([+-]?)(\d*)(?:\.(\d*))?(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE])|[eE]([+-]?\d+))?$/;
const binaryPower: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const decimalPower: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** A quantity as an exact fraction `numerator / 10^scale`, or undefined when it is no Kubernetes quantity. */
function parseQuantity(text: string): { numerator: bigint; scale: number } | undefined {
  const match = quantityRe.exec(text.trim());
  if (match === null) return undefined;
  const [, sign, whole = '', fraction = '', binary, decimal, exponent] = match;
  if (whole === '' && fraction === '') return undefined;
  let numerator = BigInt(`${whole}${fraction}` || '0');
  let scale = fraction.length;
  if (binary !== undefined) numerator *= 1024n ** BigInt(binaryPower[binary] ?? 0);
  const power = decimal !== undefined ? (decimalPower[decimal] ?? 0) : Number(exponent ?? 0);
  if (Math.abs(power) > 1000) return undefined;
  if (power >= 0) numerator *= 10n ** BigInt(power);
  else scale -= power;
  return { numerator: sign === '-' ? -numerator : numerator, scale };
}

/**
 * The canonical text of a quantity's value (`1Gi`, `1024Mi` and `1073741824` give the same), for comparing what
 * was sent with what the API server, which canonicalises quantities, gives back; a text that is no quantity
 * is returned as it is.
 */
export function canonicalQuantity(text: string): string {
  const parsed = parseQuantity(text);
  if (parsed === undefined) return text;
  let { numerator, scale } = parsed;
  while (scale > 0 && numerator % 10n === 0n) {
    numerator /= 10n;
    scale -= 1;
  }
  return scale === 0 ? String(numerator) : `${numerator}e-${scale}`;
}

/** Whether two Kubernetes quantities have the same value (`1Gi` = `1024Mi`, `0.5` = `500m`). */
export function quantitiesEqual(a: string, b: string): boolean {
  return a === b || canonicalQuantity(a) === canonicalQuantity(b);
}
