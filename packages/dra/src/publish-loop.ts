import type { Clock, TimerHandle } from '@kdp/base';

/** Options of {@link createPublishLoop}. */
export interface PublishLoopOptions {
  readonly clock: Clock;
  /** How long requests are collected before one pass. */
  readonly debounceMs: number;
  /** Delay before retry number `attempt` (1-based) of a failed pass. */
  readonly backoff: (attempt: number) => number;
  /** One pass; a rejection is retried after the backoff. */
  readonly pass: () => Promise<void>;
  /** A pass failed; the next one starts no sooner than `retryInMs`. */
  readonly onFailure: (error: unknown, attempt: number, retryInMs: number) => void;
}

/** Runs passes one at a time, debounced, retried with backoff, and tells who waits when theirs is done. */
export interface PublishLoop {
  /** Allows passes and asks for the first one now. */
  start(): void;
  /** Asks for a pass after `delayMs` (default the debounce); while one runs, another follows it. */
  request(delayMs?: number): void;
  /** Resolves once a pass that began after every request so far succeeded. */
  synced(): Promise<void>;
  /** Stops the timer, waits for a pass in progress and `finish`, then releases every waiter. */
  stop(finish: () => Promise<void>): Promise<void>;
}

/** Creates the loop that turns requests into passes (the publisher's reconciles). */
export function createPublishLoop(options: PublishLoopOptions): PublishLoop {
  const { clock, debounceMs, backoff } = options;
  let started = false;
  let stopped = false;
  let timer: TimerHandle | undefined;
  let timerDue = 0;
  let notBefore = 0;
  let running: Promise<void> | undefined;
  let dirty = false;
  let attempt = 0;
  let requested = 0;
  let completed = -1;
  let waiters: { upTo: number; resolve: () => void }[] = [];

  const schedule = (delayMs: number): void => {
    if (stopped || !started) return;
    if (running !== undefined) {
      dirty = true;
      return;
    }
    const due = Math.max(clock.now() + delayMs, notBefore);
    if (timer !== undefined) {
      if (timerDue <= due) return;
      clock.clearTimeout(timer);
    }
    timerDue = due;
    timer = clock.setTimeout(
      () => {
        timer = undefined;
        run();
      },
      Math.max(0, due - clock.now()),
    );
  };

  const settleWaiters = (): void => {
    const ready = waiters.filter((w) => w.upTo <= completed);
    waiters = waiters.filter((w) => w.upTo > completed);
    for (const w of ready) w.resolve();
  };

  const run = (): void => {
    if (stopped || running !== undefined) return;
    dirty = false;
    const upTo = requested;
    running = options
      .pass()
      .then(
        () => {
          attempt = 0;
          notBefore = 0;
          completed = Math.max(completed, upTo);
          settleWaiters();
        },
        (error: unknown) => {
          attempt += 1;
          const retryInMs = backoff(attempt);
          notBefore = clock.now() + retryInMs;
          dirty = true;
          options.onFailure(error, attempt, retryInMs);
        },
      )
      .finally(() => {
        running = undefined;
        if (dirty) schedule(debounceMs);
      });
  };

  const request = (delayMs: number = debounceMs): void => {
    requested += 1;
    schedule(delayMs);
  };

  return {
    start() {
      if (started || stopped) return;
      started = true;
      request(0);
    },
    request,
    synced() {
      if (completed >= requested) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ upTo: requested, resolve }));
    },
    async stop(finish) {
      stopped = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      await running;
      await finish();
      for (const w of waiters) w.resolve();
      waiters = [];
    },
  };
}
