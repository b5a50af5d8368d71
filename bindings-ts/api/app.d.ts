// app: the micro-app's own lifecycle and health.

declare namespace app {
  /**
   * Sets the handler for errors thrown by callbacks and reported by the system; null removes it.
   * type is 1 for an exception thrown by a callback, 2 for a rejected promise nobody handled,
   * 3 for a system error. In 0.0.9 the second argument is the error message as a string.
   */
  function setErrorHandler(errorHandler: ((type: number, error: Error) => void) | null): void;
  /** Stops and deletes the app; a new one can then be installed over Bluetooth or the cloud. */
  function remove(): void;
  /** Stops the app; it can be started again by cycling the side button or installing an app. */
  function stop(): void;
  /** Restarts the app from the beginning; app.getUptime() starts again from 0. */
  function restart(): void;
  /** Milliseconds since the app was installed, the device rebooted or the app restarted. */
  function getUptime(): number;
  /**
   * Forces a garbage collection.
   * @versions 0.0.9 0.2.6
   */
  function gc(): void;
  /**
   * Memory of the JavaScript heap, in bytes.
   * @since 0.1.5
   */
  function getMemStats(): MemStats;
}

/** Memory statistics, in bytes. */
interface MemStats {
  total: number;
  used: number;
  free: number;
  /** The highest use since the app started. */
  peak: number;
}
