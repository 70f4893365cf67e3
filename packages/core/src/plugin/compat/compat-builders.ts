import type { AcceptedCompatOption, CompatTarget, RefusedCompatOption } from './compat-layer';

/** How an anchor's option is written: `boolean` (`-name`, `-name=false`) or `value` (`-name v`, `-name=v`). */
export type CompatOptionKind = 'boolean' | 'value';

/** Options of `compat.toFlag`. */
export interface ToFlagOptions {
  /** What the value must name (`a file`): an empty value is refused with `must name a file`. */
  readonly names?: string;
  /**
   * Makes the option the anchor's boolean: when true it sets our flag to this value (`cdi`), or, with `true`, as
   * a switch (`--version`); false sets nothing.
   */
  readonly whenTrue?: string | true;
}

/**
 * Builders for a compat layer's options, as `flag.*` are for a plugin's own flags: an anchor's flag or variable
 * is accepted with a meaning here, passed on to one of our flags, or refused saying what to do instead.
 */
export const compat = {
  /** Accepted: `apply` gives it its meaning here (booleans receive `true`/`false`) and throws for a bad value. */
  accept(
    kind: CompatOptionKind,
    description: string,
    apply: (value: string, to: CompatTarget) => void,
  ): AcceptedCompatOption {
    return { kind, description, apply };
  },
  /** Refused with exit 2: `reason` says why and what to use instead. */
  refuse(kind: CompatOptionKind, reason: string): RefusedCompatOption {
    return { kind, refuse: reason };
  },
  /** Accepted as one of our flags (`-config-file F` → `--config F`); see {@link ToFlagOptions}. */
  toFlag(name: string, description: string, options: ToFlagOptions = {}): AcceptedCompatOption {
    const { names, whenTrue } = options;
    if (whenTrue !== undefined)
      return compat.accept('boolean', description, (value, to) => {
        if (value !== 'true') return;
        if (whenTrue === true) to.flag(name);
        else to.flag(name, whenTrue);
      });
    return compat.accept('value', description, (value, to) => {
      if (names !== undefined && value.trim() === '') throw new Error(`must name ${names}`);
      to.flag(name, value);
    });
  },
  /** A boolean accepted only as false (the anchor's default, what kdp does); true is refused with `refusal`. */
  onlyFalse(anchor: string, refusal: string): AcceptedCompatOption {
    return compat.accept(
      'boolean',
      `false only (${anchor}'s default); true is refused: ${refusal}`,
      (value) => {
        if (value === 'true') throw new Error(`true is not supported: ${refusal}`);
      },
    );
  },
};

/** `-use-cdi` of the network anchors (Mellanox's RDMA plugin, sriov-network-device-plugin): `--device-list-strategy cdi`. */
export const useCdiOption: AcceptedCompatOption = compat.toFlag(
  'device-list-strategy',
  'hand devices over as CDI names, specs in --cdi-dir (--device-list-strategy cdi)',
  { whenTrue: 'cdi' },
);
