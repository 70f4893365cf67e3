import type { PluginDevice } from './plugin-device';

/** A string field: optionally one of `enum`, matching `pattern` (RE2, anchored by the author), at most `maxLength`. */
export interface ConfigStringField {
  readonly type: 'string';
  readonly enum?: readonly string[];
  readonly pattern?: string;
  readonly maxLength?: number;
  /** What the field means (for docs). */
  readonly description?: string;
}

/** An integer field within `minimum`…`maximum`. */
export interface ConfigIntegerField {
  readonly type: 'integer';
  readonly minimum?: number;
  readonly maximum?: number;
  /** What the field means (for docs). */
  readonly description?: string;
}

/** A boolean field. */
export interface ConfigBooleanField {
  readonly type: 'boolean';
  /** What the field means (for docs). */
  readonly description?: string;
}

/** An object with exactly these fields (any other is an unknown field); `required` ones must be present. */
export interface ConfigObjectField {
  readonly type: 'object';
  readonly fields: Readonly<Record<string, ConfigField>>;
  readonly required?: readonly string[];
  /** What the field means (for docs). */
  readonly description?: string;
}

/** A map of string keys (matching `keyPattern`, none of `reservedKeys`) to string values (environment). */
export interface ConfigStringMapField {
  readonly type: 'stringMap';
  readonly keyPattern?: string;
  /** Keys refused with `reservedMessage`. */
  readonly reservedKeys?: readonly string[];
  readonly reservedMessage?: string;
  readonly maxEntries?: number;
  /** What the field means (for docs). */
  readonly description?: string;
}

/** A list of strings. */
export interface ConfigStringListField {
  readonly type: 'stringList';
  readonly items: ConfigStringField;
  readonly maxItems?: number;
  /** What the field means (for docs). */
  readonly description?: string;
}

/** A field that exists in the kind but is refused (e.g. a device-plugin setting DRA replaces); `message` says why. */
export interface ConfigRefusedField {
  readonly type: 'refused';
  readonly message: string;
  /** What the field means (for docs). */
  readonly description?: string;
}

/** One field of a claim configuration kind. */
export type ConfigField =
  | ConfigStringField
  | ConfigIntegerField
  | ConfigBooleanField
  | ConfigObjectField
  | ConfigStringMapField
  | ConfigStringListField
  | ConfigRefusedField;

/**
 * A versioned kind of opaque claim configuration (`apiVersion: gpu.kdp.dev/v1alpha1`, `kind: GpuConfig`): its
 * fields besides `apiVersion` and `kind`. The same description gives the driver's strict decoder and the CEL of
 * its ValidatingAdmissionPolicy.
 */
export interface ClaimConfigKind {
  /** `<group>/<version>` (`gpu.kdp.dev/v1alpha1`). */
  readonly apiVersion: string;
  /** The kind (`GpuConfig`). */
  readonly kind: string;
  /** Its fields besides `apiVersion` and `kind`. */
  readonly schema: ConfigObjectField;
}

/** A decoded configuration: its kind and its fields as the claim gave them (checked against the kind's schema). */
export interface ClaimConfigValue {
  /** One of the resource's kinds' `apiVersion`. */
  readonly apiVersion: string;
  /** Its `kind`. */
  readonly kind: string;
  readonly [field: string]: unknown;
}

/** What the apply hook receives: one device of the resource and the configurations that apply to it. */
export interface ClaimConfigContext<P> {
  /** The resource name. */
  readonly resource: string;
  /** The plugin device being prepared. */
  readonly device: PluginDevice<P>;
  /** Its DRA device name (`<NAME>_<DEVICE>` variables use it). */
  readonly deviceName: string;
  /** The decoded configurations for the device's request, of this resource's kinds, class ones first (later win). */
  readonly config: readonly ClaimConfigValue[];
  /** Aborts when the plugin stops. */
  readonly signal: AbortSignal;
}

/** What applying a claim's configuration to one device adds to its CDI device. */
export interface ClaimConfigEffect {
  /** Environment added to the device's CDI edits (names must compose with other devices': distinct or equal). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The hook did the device's PreStartContainer work itself (an FPGA region programmed with the claim's bitstream),
   * so the resource's configured one is not run for it.
   */
  readonly prepared?: boolean;
}

/** The typed per-claim configuration a resource takes under DRA (opaque `parameters` of its driver). */
export interface ResourceClaimConfig<P = unknown> {
  /** The kinds it takes. */
  readonly kinds: readonly ClaimConfigKind[];
  /** Applies the configurations of a device at prepare; throw to fail the claim (the message reaches the pod). */
  readonly apply: (context: ClaimConfigContext<P>) => ClaimConfigEffect | Promise<ClaimConfigEffect>;
}
