import type { KubeStatusCause } from '@kdp/core';

/** What the publisher reports (`onEvent`). */
export type SlicePublisherEvent =
  | {
      /** A pool's slices were written: its new generation and how many slices were created, updated, deleted. */
      readonly type: 'published';
      readonly pool: string;
      readonly generation: number;
      readonly created: number;
      readonly updated: number;
      readonly deleted: number;
    }
  | {
      /** A pool no longer in the device model: its slices were deleted. */
      readonly type: 'removed';
      readonly pool: string;
      readonly deleted: number;
    }
  | {
      /**
       * The API server refused a pool's slices (422), or they use a field its `resource.k8s.io` version lacks: not
       * retried until that pool's devices (or the version) change.
       */
      readonly type: 'rejected';
      readonly pool: string;
      readonly message: string;
      readonly causes: readonly KubeStatusCause[];
    }
  | {
      /** A write hit a newer object (409) or a deleted one (404): the slices are listed again and it is retried. */
      readonly type: 'conflict';
      readonly pool: string;
      readonly message: string;
    }
  | {
      /** Any other failure (network, 403, the Node missing): retried after `retryInMs`. */
      readonly type: 'error';
      readonly message: string;
      readonly attempt: number;
      readonly retryInMs: number;
    };
