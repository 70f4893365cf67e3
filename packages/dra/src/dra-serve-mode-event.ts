import type { DraPluginEvent } from './dra-plugin';
import type { SlicePublisherEvent } from './slice-publisher';

/** Something that happened to one plugin's driver in DRA mode (tests and logs). */
export type DraServeModeEvent =
  | ({ readonly driver: string; readonly source: 'plugin' } & DraPluginEvent)
  | ({ readonly driver: string; readonly source: 'slices' } & SlicePublisherEvent);
