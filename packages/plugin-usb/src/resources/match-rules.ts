import { globToRegExp } from '@kdp/topology';
import type { UsbMatchRule } from '../config';
import { isHub, type UsbDevice } from '../scan/usb-device';

const cache = new Map<string, RegExp>();
const compiled = (pattern: string, ignoreCase: boolean): RegExp => {
  const key = `${ignoreCase ? 'i' : 's'}${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = globToRegExp(pattern, { ignoreCase });
    if (cache.size > 4096) cache.clear();
    cache.set(key, re);
  }
  return re;
};

/** Why a rule does not match a device (`vendor 0403 is not 10c4`), or undefined when it matches. */
export function ruleMismatch(rule: UsbMatchRule, device: UsbDevice): string | undefined {
  const field = (
    name: string,
    pattern: string | undefined,
    value: string | undefined,
    ignoreCase: boolean,
  ) =>
    pattern === undefined || (value !== undefined && compiled(pattern, ignoreCase).test(value))
      ? undefined
      : `${name} ${value === undefined ? '(none)' : JSON.stringify(value)} does not match ${JSON.stringify(pattern)}`;
  const checks = [
    field('vendor', rule.vendor, device.vendorId, true),
    field('product', rule.product, device.productId, true),
    field('serial', rule.serial, device.serial, false),
    field('port', rule.port, device.portPath, false),
    field('manufacturer', rule.manufacturer, device.manufacturer, false),
    field('productName', rule.productName, device.product, false),
  ];
  if (rule.class !== undefined) {
    const re = compiled(rule.class, true);
    const classes = [...new Set([device.deviceClass, ...device.interfaceClasses])];
    if (!classes.some((c) => re.test(c))) {
      checks.push(`classes [${classes.join(',')}] do not match ${JSON.stringify(rule.class)}`);
    }
  }
  const first = checks.find((c) => c !== undefined);
  if (first !== undefined) return first;
  if (isHub(device) && (rule.class === undefined || !compiled(rule.class, true).test('09'))) {
    return 'is a hub (class 09); name class 09 in the rule to hand out hubs';
  }
  return undefined;
}

/** Undefined when any rule matches, else the reason the first rule gave. */
export function matchRules(rules: readonly UsbMatchRule[], device: UsbDevice): string | undefined {
  let first: string | undefined;
  for (const rule of rules) {
    const why = ruleMismatch(rule, device);
    if (why === undefined) return undefined;
    first ??= why;
  }
  return first ?? 'no match rules';
}
