// sys: what the device is and how long it has been up.

declare namespace sys {
  /** The device's public identifier as a hex string; enqueued events already carry it. */
  function getPublicId(): string;
  /** Seconds since the last reset. */
  function getUptime(): number;
  /**
   * Whether UTC time is known (synced over LTE or GNSS). While it is not, date operations print
   * an invalid-time error on the console.
   * @since 0.1.5
   */
  function isTimeSynced(): boolean;
  /** The firmware API version the app runs against, as [major, minor, patch]. */
  function getFirmware(): number[];
  /** The hardware revision. */
  function getHardware(): string;
}
