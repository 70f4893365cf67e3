import type { PluginDevice } from './plugin-device';
import type { AllocateContext } from './resource-declaration';
import type { CallCancellation } from './unary-reply';

/**
 * What the allocate hook receives, its `signal` made only when the hook reads it. `signal` is an own enumerable
 * property, as in an object literal, but its getter is one function shared by every context: a literal's getter
 * is a new closure each time, which gives each context a map of its own holding the closure (and through it the
 * call) until the next full GC.
 */
export function createAllocateContext<P>(
  resource: string,
  devices: readonly PluginDevice<P>[],
  containerIndex: number,
  cancellation: CallCancellation,
): AllocateContext<P> {
  return new HookContext(resource, devices, containerIndex, cancellation);
}

class HookContext<P> {
  /** Defined in the constructor, with the shared getter. */
  declare readonly signal: AbortSignal;
  readonly #cancellation: CallCancellation;
  constructor(
    readonly resource: string,
    readonly devices: readonly PluginDevice<P>[],
    readonly containerIndex: number,
    cancellation: CallCancellation,
  ) {
    this.#cancellation = cancellation;
    Object.defineProperty(this, 'signal', SIGNAL);
  }

  /** The signal of a context (the shared getter's body: only the class reaches its private field). */
  static signalOf(context: HookContext<unknown>): AbortSignal {
    return context.#cancellation.signal;
  }
}

const SIGNAL: PropertyDescriptor = {
  get(this: HookContext<unknown>): AbortSignal {
    return HookContext.signalOf(this);
  },
  enumerable: true,
};
