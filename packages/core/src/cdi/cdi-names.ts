/** Result of a CDI name check: `{ valid: true }` or `{ valid: false, message }`. */
export type CdiNameValidation =
  { readonly valid: true } | { readonly valid: false; readonly message: string };

const LETTER = /[A-Za-z]/;
const ALNUM = /[A-Za-z0-9]/;

/**
 * Checks a CDI vendor (`example.com`) the way the CDI reference implementation does: ASCII letters, digits,
 * `_`, `-` and `.`, starting with a letter and ending with a letter or digit.
 */
export function validateCdiVendor(vendor: string): CdiNameValidation {
  return vendorOrClass('vendor', vendor);
}

/** Checks a CDI class (`gpu`): the same rule as a vendor. */
export function validateCdiClass(cdiClass: string): CdiNameValidation {
  return vendorOrClass('class', cdiClass);
}

/** Checks a CDI kind, `<vendor>/<class>`. */
export function validateCdiKind(kind: string): CdiNameValidation {
  const slash = kind.indexOf('/');
  if (slash <= 0 || slash === kind.length - 1)
    return invalid(`invalid CDI kind ${JSON.stringify(kind)}: expected vendor/class`);
  const vendor = validateCdiVendor(kind.slice(0, slash));
  return vendor.valid ? validateCdiClass(kind.slice(slash + 1)) : vendor;
}

/**
 * Checks a CDI device name (`0`, `GPU-3f1c`, `card0:1`): ASCII letters, digits, `_`, `-`, `.` and `:`,
 * starting and ending with a letter or digit.
 */
export function validateCdiDeviceName(name: string): CdiNameValidation {
  if (name === '') return invalid('invalid CDI device name: empty');
  if (!ALNUM.test(name[0] ?? ''))
    return invalid(`invalid CDI device name ${JSON.stringify(name)}: must start with a letter or digit`);
  const bad = [...name].find((c) => !/[A-Za-z0-9_.:-]/.test(c));
  if (bad !== undefined)
    return invalid(
      `invalid CDI device name ${JSON.stringify(name)}: character ${JSON.stringify(bad)} is not allowed`,
    );
  if (!ALNUM.test(name[name.length - 1] ?? ''))
    return invalid(`invalid CDI device name ${JSON.stringify(name)}: must end with a letter or digit`);
  return { valid: true };
}

/** The fully qualified CDI device name `vendor/class=name` for Allocate's `cdiDevices`; throws on an invalid part. */
export function cdiQualifiedName(vendor: string, cdiClass: string, name: string): string {
  for (const check of [validateCdiVendor(vendor), validateCdiClass(cdiClass), validateCdiDeviceName(name)]) {
    if (!check.valid) throw new Error(check.message);
  }
  return `${vendor}/${cdiClass}=${name}`;
}

/** Splits `vendor/class=name` into its parts, or returns undefined when it is not a valid qualified name. */
export function parseCdiQualifiedName(
  qualified: string,
): { vendor: string; cdiClass: string; name: string } | undefined {
  const eq = qualified.indexOf('=');
  if (eq < 0) return undefined;
  const kind = qualified.slice(0, eq);
  const name = qualified.slice(eq + 1);
  if (!validateCdiKind(kind).valid || !validateCdiDeviceName(name).valid) return undefined;
  const slash = kind.indexOf('/');
  return { vendor: kind.slice(0, slash), cdiClass: kind.slice(slash + 1), name };
}

function vendorOrClass(what: 'vendor' | 'class', name: string): CdiNameValidation {
  const label = `invalid CDI ${what} ${JSON.stringify(name)}`;
  if (name === '') return invalid(`invalid CDI ${what}: empty`);
  if (!LETTER.test(name[0] ?? '')) return invalid(`${label}: must start with a letter`);
  const bad = [...name].find((c) => !/[A-Za-z0-9_.-]/.test(c));
  if (bad !== undefined) return invalid(`${label}: character ${JSON.stringify(bad)} is not allowed`);
  if (!ALNUM.test(name[name.length - 1] ?? '')) return invalid(`${label}: must end with a letter or digit`);
  return { valid: true };
}

function invalid(message: string): CdiNameValidation {
  return { valid: false, message };
}
