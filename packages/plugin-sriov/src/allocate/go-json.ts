/** A JSON value made of strings and objects only (what upstream's `_INFO` and device-info files hold). */
export type GoJsonValue = string | { readonly [key: string]: GoJsonValue };

/**
 * Serializes like Go's `encoding/json` does for `map[string]…` values: keys sorted bytewise, no spaces,
 * and `<`, `>`, `&`, U+2028, U+2029 escaped as `\u003c` etc., so the text is byte-identical to upstream's.
 */
export function goJson(value: GoJsonValue): string {
  if (typeof value === 'string') return goString(value);
  const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((key) => `${goString(key)}:${goJson(value[key] as GoJsonValue)}`).join(',')}}`;
}

/** A Go-escaped JSON string. */
export function goString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
