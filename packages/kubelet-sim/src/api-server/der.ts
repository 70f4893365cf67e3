/*
 * The few DER (X.690) encodings an X.509 certificate needs: TLV framing, INTEGER, OBJECT IDENTIFIER, strings,
 * times and context tags.
 */

/** One DER TLV: `tag`, its length in DER's definite form, then `content`. */
export function derTlv(tag: number, content: Uint8Array): Buffer {
  const length = content.length;
  let header: number[];
  if (length < 0x80) header = [tag, length];
  else {
    const bytes: number[] = [];
    for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
    header = [tag, 0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from(header), content]);
}

/** A SEQUENCE of already encoded elements. */
export const derSequence = (...elements: readonly Uint8Array[]): Buffer =>
  derTlv(0x30, Buffer.concat(elements));

/** A SET of already encoded elements. */
export const derSet = (...elements: readonly Uint8Array[]): Buffer => derTlv(0x31, Buffer.concat(elements));

/** An INTEGER from unsigned big-endian bytes (a leading 0 added when the top bit is set). */
export function derUnsignedInteger(bytes: Uint8Array): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const trimmed = Buffer.from(bytes.subarray(start));
  const content = (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return derTlv(0x02, content);
}

/** An OBJECT IDENTIFIER from its dotted form (`1.2.840.10045.4.3.2`). */
export function derOid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes: number[] = [first * 40 + second];
  for (const arc of rest) {
    const groups: number[] = [];
    for (let n = arc; ; n = Math.floor(n / 128)) {
      groups.unshift(n % 128);
      if (n < 128) break;
    }
    groups.forEach((g, i) => bytes.push(i < groups.length - 1 ? g | 0x80 : g));
  }
  return derTlv(0x06, Buffer.from(bytes));
}

/** A UTF8String. */
export const derUtf8 = (text: string): Buffer => derTlv(0x0c, Buffer.from(text, 'utf8'));

/** An OCTET STRING. */
export const derOctetString = (content: Uint8Array): Buffer => derTlv(0x04, content);

/** A BIT STRING with no unused bits. */
export const derBitString = (content: Uint8Array): Buffer =>
  derTlv(0x03, Buffer.concat([Buffer.from([0]), content]));

/** A BOOLEAN. */
export const derBoolean = (value: boolean): Buffer => derTlv(0x01, Buffer.from([value ? 0xff : 0]));

/** A time as X.509 wants it: UTCTime before 2050, GeneralizedTime from then on (seconds, `Z`). */
export function derTime(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  return date.getUTCFullYear() < 2050
    ? derTlv(0x17, Buffer.from(`${iso.slice(2)}Z`, 'ascii'))
    : derTlv(0x18, Buffer.from(`${iso}Z`, 'ascii'));
}

/** A constructed context-specific tag `[n]` around encoded content (EXPLICIT tagging). */
export const derExplicit = (n: number, content: Uint8Array): Buffer => derTlv(0xa0 | n, content);

/** A primitive context-specific tag `[n]` with raw content (IMPLICIT tagging of a primitive). */
export const derImplicit = (n: number, content: Uint8Array): Buffer => derTlv(0x80 | n, content);
