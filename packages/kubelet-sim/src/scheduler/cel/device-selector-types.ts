/** Compiles DRA device selector expressions (DeviceClass and request `selectors[].cel.expression`). */
export interface DeviceSelectorCompiler {
  /**
   * `{ ok: true, selector }`, whose `matches(device)` says whether the device matches and throws on a runtime
   * error (a missing attribute, a bad version), as upstream fails the allocation; or `{ ok: false, message }`.
   * The device: its driver (the domain of names without one), its attributes and capacities as
   * resource.k8s.io/v1 writes them, and `allowMultipleAllocations`.
   */
  compile(expression: string):
    | {
        readonly ok: true;
        readonly selector: {
          readonly expression: string;
          matches(device: {
            readonly driver: string;
            readonly attributes?: Readonly<
              Record<
                string,
                {
                  readonly int?: number | string;
                  readonly bool?: boolean;
                  readonly string?: string;
                  readonly version?: string;
                }
              >
            >;
            readonly capacity?: Readonly<Record<string, { readonly value: string }>>;
            readonly allowMultipleAllocations?: boolean;
          }): boolean;
        };
      }
    | { readonly ok: false; readonly message: string };
}

/** The outcome of {@link DeviceSelectorCompiler.compile}. */
export type CompileResult = ReturnType<DeviceSelectorCompiler['compile']>;

/** A compiled device selector. */
export type DeviceSelector = Extract<CompileResult, { ok: true }>['selector'];

/** What a selector sees of a device. */
export type SelectorDevice = Parameters<DeviceSelector['matches']>[0];

/** A device attribute value (exactly one field set). */
export type DeviceAttributeValue = NonNullable<SelectorDevice['attributes']>[string];
