import { validateResourceName } from '@kdp/api';
import { z } from '@kdp/core';

/**
 * A hex pattern written as a string (`"0403"`, `"0x10c4"`, globs) or a bare YAML number (`0403` → 403, read back
 * as its digits, zero-padded to `width`).
 */
const hexPattern = (width: number, max: number) =>
  z
    .union([z.string(), z.number().int().nonnegative()])
    .transform((v) => (typeof v === 'number' ? String(v).padStart(width, '0') : v.replace(/^0[xX]/, '')))
    .pipe(z.string().min(1, 'must not be empty').max(max));

/** A USB vendor or product ID pattern. */
const idPattern = hexPattern(4, 64);
/** A USB class pattern. */
const classPattern = hexPattern(2, 16);

const text = z.string().min(1, 'must not be empty').max(256);

/** One match rule: every field given must match (globs allowed); a device matching any rule belongs. */
export const usbMatchRuleSchema = z
  .strictObject({
    vendor: idPattern.optional(),
    product: idPattern.optional(),
    serial: text.optional(),
    /** bDeviceClass or any interface's bInterfaceClass, two hex digits. */
    class: classPattern.optional(),
    /** Port path, the sysfs name (`1-1.4`). */
    port: text.optional(),
    manufacturer: text.optional(),
    productName: text.optional(),
  })
  .refine((rule) => Object.values(rule).some((v) => v !== undefined), {
    message:
      'a match rule needs at least one of vendor, product, serial, class, port, manufacturer, productName',
  });

/** Which device nodes a USB resource hands out. */
export const nodeKindSchema = z.enum(['usb', 'tty', 'hidraw', 'video', 'input']);

const resourceName = z.string().superRefine((name, ctx) => {
  const check = validateResourceName(name);
  if (!check.valid) ctx.addIssue({ code: 'custom', message: `${check.message}: ${check.reason}` });
});

const permissions = z.string().regex(/^[rwm]{1,3}$/, 'must be made of r, w and m');
const count = z.number().int().min(1).max(1000);

/** A resource of the native format: `match` rules for USB devices, or `paths` globs for character devices. */
export const usbResourceSchema = z
  .strictObject({
    name: resourceName,
    match: z.array(usbMatchRuleSchema).min(1).optional(),
    paths: z
      .array(z.string().regex(/^\/dev\//, 'must be a path under /dev/'))
      .min(1)
      .optional(),
    count: count.default(1),
    permissions: permissions.default('rw'),
    nodes: z.array(nodeKindSchema).min(1).optional(),
  })
  .refine((r) => (r.match === undefined) !== (r.paths === undefined), {
    message: 'give exactly one of match (USB devices) and paths (device-path globs)',
  });

/** A path of generic-device-plugin's format. */
const gdpPathSchema = z.looseObject({
  path: z.string().regex(/^\/dev\//, 'must be a path under /dev/'),
  mountPath: z.string().optional(),
  permissions: permissions.optional(),
  type: z.enum(['Device', 'Mount']).optional(),
  readOnly: z.boolean().optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  optional: z.boolean().optional(),
});

/** A USB spec of generic-device-plugin's format (exact vendor, product, optional serial). */
const gdpUsbSchema = z.strictObject({ vendor: idPattern, product: idPattern, serial: z.string().optional() });

/** A device of generic-device-plugin's format: `{ name, groups: [{ paths | usb, count }] }`. */
export const gdpDeviceSchema = z.strictObject({
  name: z.string().min(1),
  groups: z
    .array(
      z
        .strictObject({
          paths: z.array(gdpPathSchema).min(1).optional(),
          usb: z.array(gdpUsbSchema).min(1).optional(),
          count: count.optional(),
        })
        .refine((g) => (g.paths === undefined) !== (g.usb === undefined), {
          message: 'a group needs exactly one of paths and usb',
        }),
    )
    .min(1),
});

/** The whole `--config` file: native `resources`, generic-device-plugin `devices` (+ `domain`), or both. */
export const usbConfigSchema = z
  .strictObject({
    resources: z.array(usbResourceSchema).default([]),
    /** generic-device-plugin's `--domain`; its 0.1 default. */
    domain: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a DNS subdomain')
      .default('squat.ai'),
    devices: z.array(gdpDeviceSchema).default([]),
    /**
     * Set when started as generic-device-plugin (its compat layer): the `devices` list is named and handed over as
     * it does: its sha1 device IDs for path groups, the bus node alone for usb groups, no `KDP_USB_*` variables.
     */
    anchor: z.literal('generic-device-plugin').optional(),
    /** `auto`: use the `usb` package for hot-plug events and descriptor strings when sysfs is the host's; `off`. */
    usbLibrary: z.enum(['auto', 'off']).default('auto'),
    /** Removed: the poll is the common `--poll-interval` flag now; named here so the error says so. */
    pollIntervalMs: z.never({ message: 'removed; use the --poll-interval flag (e.g. 1s)' }).optional(),
  })
  .superRefine((config, ctx) => {
    const seen = new Map<string, string>();
    const claim = (name: string, path: (string | number)[]): void => {
      const earlier = seen.get(name);
      if (earlier !== undefined) {
        ctx.addIssue({ code: 'custom', path, message: `resource ${name} is already defined at ${earlier}` });
      }
      seen.set(name, path.join('.'));
    };
    config.resources.forEach((r, i) => claim(r.name, ['resources', i, 'name']));
    config.devices.forEach((d, i) => {
      const name = `${config.domain}/${d.name}`;
      const path = ['devices', i, 'name'];
      const check = resourceName.safeParse(name);
      if (check.success) claim(name, path);
      else
        for (const issue of check.error.issues)
          ctx.addIssue({ code: 'custom', path, message: issue.message });
    });
  });

/** The parsed configuration. */
export type UsbConfig = z.output<typeof usbConfigSchema>;
/** One parsed match rule. */
export type UsbMatchRule = z.output<typeof usbMatchRuleSchema>;
/** A device-node kind. */
export type NodeKind = z.output<typeof nodeKindSchema>;
