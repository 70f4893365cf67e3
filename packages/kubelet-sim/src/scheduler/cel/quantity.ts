/** An exact Kubernetes resource quantity, as a reduced fraction `num / den` (den > 0). */
export interface Quantity {
  readonly num: bigint;
  readonly den: bigint;
}

const binary: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const decimal: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const syntax = /^([+-]?)(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

const abs = (n: bigint): bigint => (n < 0n ? -n : n);
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? abs(a) : gcd(b, a % b));

/** The reduced fraction of `num / den`. */
export function fraction(num: bigint, den: bigint): Quantity {
  if (den === 0n) throw new Error('division by zero');
  const g = gcd(num, den) || 1n;
  const s = den < 0n ? -1n : 1n;
  return { num: (s * num) / g, den: (s * den) / g };
}

const pow10 = (e: number): Quantity =>
  e >= 0 ? fraction(10n ** BigInt(e), 1n) : fraction(1n, 10n ** BigInt(-e));

/** Parses a quantity ("1.5Gi", "500m", "1e3"); throws on anything else, as `quantity()` does. */
export function parseQuantity(text: string): Quantity {
  const match = syntax.exec(text);
  if (match === null)
    throw new Error(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  const [, signText = '', digits = '', suffix = ''] = match;
  const [whole = '', part = ''] = digits.split('.');
  let value = fraction(
    BigInt((signText === '-' ? '-' : '') + ((whole + part).replace(/^0+(?=\d)/, '') || '0')),
    10n ** BigInt(part.length),
  );
  const times = (q: Quantity): Quantity => fraction(value.num * q.num, value.den * q.den);
  if (suffix in binary) value = times(fraction(binary[suffix] as bigint, 1n));
  else if (suffix in decimal) value = times(pow10(decimal[suffix] as number));
  else value = times(pow10(Number(suffix.slice(1))));
  return value;
}

/** `a + b`. */
export const addQuantity = (a: Quantity, b: Quantity): Quantity =>
  fraction(a.num * b.den + b.num * a.den, a.den * b.den);
/** `a - b`. */
export const subQuantity = (a: Quantity, b: Quantity): Quantity =>
  fraction(a.num * b.den - b.num * a.den, a.den * b.den);

/** -1, 0 or 1. */
export function compareQuantity(a: Quantity, b: Quantity): number {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** Whether the quantity is a whole number. */
export const isIntegerQuantity = (q: Quantity): boolean => q.den === 1n;

/** The quantity as a (nearest) float. */
export const quantityToFloat = (q: Quantity): number => Number(q.num) / Number(q.den);

/** A stable text for equality: equal values, equal keys. */
export const quantityKey = (q: Quantity): string => `${q.num}/${q.den}`;

const binarySuffixes = ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'] as const;
const decimalSuffixes = [
  ['E', 18],
  ['P', 15],
  ['T', 12],
  ['G', 9],
  ['M', 6],
  ['k', 3],
] as const;

/**
 * The quantity in Kubernetes' canonical style: whole multiples of 1024 with a binary suffix ("20Gi"), of 1000
 * with a decimal one ("2k"), milli-units for exact thousandths ("500m"), else the plain number.
 */
export function formatQuantity(q: Quantity): string {
  if (q.den !== 1n) {
    const milli = fraction(q.num * 1000n, q.den);
    return milli.den === 1n ? `${milli.num}m` : String(quantityToFloat(q));
  }
  if (q.num === 0n) return '0';
  for (const suffix of binarySuffixes) {
    const unit = binary[suffix] as bigint;
    if (q.num % unit === 0n) return `${q.num / unit}${suffix}`;
  }
  for (const [suffix, exponent] of decimalSuffixes) {
    const unit = 10n ** BigInt(exponent);
    if (q.num % unit === 0n) return `${q.num / unit}${suffix}`;
  }
  return String(q.num);
}
