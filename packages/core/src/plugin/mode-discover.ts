import type { Clock, Logger } from '@kdp/base';
import type { PluginDevice } from '../plugin-device';
import type { AnyPluginDefinition, ResourceSpec } from './define-plugin';

/** One resource as `discover` scanned it: its spec (hooks included) and the devices it would advertise now. */
export interface ModeDiscoverResource {
  readonly spec: ResourceSpec<unknown>;
  readonly devices: readonly PluginDevice<unknown>[];
}

/** What a serve mode's `discover` is given for one plugin. */
export interface ModeDiscoverInput {
  readonly definition: AnyPluginDefinition;
  /** `--node-name`, else `$NODE_NAME`, else the host name. */
  readonly nodeName: string;
  readonly resources: readonly ModeDiscoverResource[];
  readonly clock: Clock;
  readonly logger: Logger;
}

/** One pool of what a serve mode would publish (a DRA ResourceSlice pool): its slices' devices in the API's JSON. */
export interface ModeDiscoverPool {
  readonly resourceName: string;
  readonly pool: string;
  readonly slices: readonly (readonly object[])[];
  /** The pool's counter sets (KEP 4815 `sharedCounters`, in slices of their own), in the API's JSON; absent: none. */
  readonly counterSets?: readonly object[];
}

/** What a serve mode would publish for one plugin (`discover --mode <name>`). */
export interface ModeDiscoverResult {
  /** The driver the pools belong to (`gpu.kdp.dev`). */
  readonly driver: string;
  readonly pools: readonly ModeDiscoverPool[];
}
