// Global functions of the device API.

/**
 * Prints text to the debug console, one line per call. Blocking while connected over Bluetooth.
 * @since 0.2.6
 * @native rt_print
 */
declare function print(text: Stringable<1024>): void;
/**
 * Prints text to the debug console, one line per call. Blocking while connected over Bluetooth.
 * @until 0.1.5
 * @native rt_print
 */
declare function print(text: Stringable): void;

/**
 * Sends data to the visualisation console. Blocking while connected over Bluetooth.
 * @since 0.2.6
 */
declare function preview(data: object): void;

/**
 * Converts an array of byte values (0..255) or an ArrayBuffer to a lowercase hex string.
 */
declare function toHex(array: number[] | ArrayBuffer): string;

/**
 * Converts an interval to milliseconds: toMs('2 min') is 120000; a number is returned as is.
 * @since 0.2.6
 */
declare function toMs(interval: Interval<'ms'>): number;

/**
 * Converts an interval to seconds: toSec('200ms') is 0.2; a number is returned as is.
 * @since 0.2.6
 */
declare function toSec(interval: Interval<'s'>): number;

/**
 * Calls callback once after interval milliseconds. Alias of timers.single.
 * @deprecated use timers.single
 * @until 0.1.5
 * @throws ESR0004 [since 0.1.5] no free timer
 */
declare function setTimeout(callback: () => void, interval: AtLeast<0>): LegacyTimer;

/**
 * Calls callback every interval milliseconds. Alias of timers.repeat.
 * @deprecated use timers.repeat
 * @until 0.1.5
 * @throws ESR0004 [since 0.1.5] no free timer
 */
declare function setInterval(callback: () => void, interval: AtLeast<1>): LegacyTimer;

/**
 * Stops a timer made by setTimeout. Alias of handler.stop(); null and undefined are ignored.
 * @deprecated use the handle's stop()
 * @until 0.1.5
 * @native rt_clear_timer
 */
declare function clearTimeout(handler?: LegacyTimer | null): void;

/**
 * Stops a timer made by setInterval. Alias of handler.stop(); null and undefined are ignored.
 * @deprecated use the handle's stop()
 * @until 0.1.5
 * @native rt_clear_timer
 */
declare function clearInterval(handler?: LegacyTimer | null): void;

/**
 * Handle of a timer made by setTimeout or setInterval.
 * @until 0.1.5
 * @handle timer
 */
interface LegacyTimer {
  /** Stops the timer; stopping a stopped timer has no effect. */
  stop(): void;
}
