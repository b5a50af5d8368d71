// timers: single-shot, repeated, at a UTC time, and counted. All callbacks run on the app's
// event loop; the device sleeps in between.

declare namespace timers {
  /**
   * Calls callback once, interval milliseconds from now.
   * @throws ESR0004 [since 0.1.5] no free timer
   */
  function single(interval: Interval<'ms'>, callback: () => void): SingleTimer;

  /**
   * Calls callback every interval milliseconds until stopped.
   * @throws ESR0004 [since 0.1.5] no free timer
   */
  function repeat(interval: Interval<'ms', 1>, callback: () => void): RepeatTimer;

  /**
   * Calls callback once at a UTC time (milliseconds since 1970, or a Date). A time in the past
   * fires at once.
   * @throws ESR0004 [since 0.1.5] no free timer
   */
  function at(timestamp: Timestamp, callback: () => void): AtTimer;

  /**
   * Calls callback count times, interval milliseconds apart, passing the number of calls still
   * to come: count - 1 down to 0, so the last call receives 0. A count of 0 finishes at once.
   * @since 0.2.6
   * @throws ESR0004 no free timer
   */
  function count(
    interval: Interval<'ms', 1>,
    count: Int<0, 4294967295>,
    callback: (count: number) => void
  ): CountTimer;
}

/**
 * Handle of timers.single.
 * @handle timer
 */
interface SingleTimer {
  /** Stops the timer; stopping a stopped timer has no effect. */
  stop(): void;
  /**
   * A promise completed after the timer fires (at once if it already has).
   * @since 0.2.6
   */
  end(): Promise<void>;
  /**
   * Schedules the timer again from now; an interval of 0 or none keeps the previous interval.
   */
  reset(interval?: Interval<'ms'>): void;
}

/**
 * Handle of timers.repeat.
 * @handle timer
 */
interface RepeatTimer {
  /** Stops the timer; stopping a stopped timer has no effect. */
  stop(): void;
  /**
   * Starts a stopped timer again; an interval of 0 or none keeps the previous interval. Has no
   * effect on a running timer.
   */
  restart(interval?: Interval<'ms'>): void;
}

/**
 * Handle of timers.at.
 * @handle timer
 */
interface AtTimer {
  /** Stops the timer; stopping a stopped timer has no effect. */
  stop(): void;
}

/**
 * Handle of timers.count.
 * @since 0.2.6
 * @handle timer
 */
interface CountTimer {
  /** Stops the timer; stopping a stopped timer has no effect. */
  stop(): void;
  /** A promise completed after the last call (at once if the timer already finished). */
  end(): Promise<void>;
}
