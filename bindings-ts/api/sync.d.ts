// sync: the synchronisation cycle with the cloud. A sync starts when the period has passed, on
// sync.now(), on low battery or when storage is nearly full; it sends the queued events and
// delivers the messages from the cloud (cloud.onReceive).

declare namespace sync {
  /**
   * Sets the handler called when a sync starts; it replaces the previous one, null clears it.
   * Events queued inside it go out in this sync. It can run several times while the device
   * retries the connection.
   * @until 0.1.5
   */
  function setHandler(callback: (() => void) | null): void;
  /**
   * Sets the handler called when a sync starts; it replaces the previous one, null clears it.
   * Events queued inside it go out in this sync. A returned promise is awaited, for at most
   * 5 minutes. It can run several times while the device retries the connection.
   * @since 0.2.4
   */
  function setHandler(callback: (() => void | Promise<void>) | null): void;

  /**
   * Sets the handler called when a sync ends, with the sync's error or undefined; it replaces
   * the previous one, null disables it. The error carries the synchronisation family's code.
   * @since 0.2.6
   * @throws ESR0601 (to the handler) no network, or no cloud configured
   * @throws ESR0602 (to the handler) the cloud refused the device's credentials
   * @throws ESR0603 (to the handler) the connection failed or was lost
   * @throws ESR0604 (to the handler) the cloud did not answer in time
   * @throws ESR0605 (to the handler) the cloud sent something the device cannot decode
   * @throws ESR0606 (to the handler) the cloud's TLS certificate is not signed by the CA the device trusts
   * @throws ESR0201 (to the handler) the queue could not be read from flash
   */
  function setEndHandler(callback: ((error: Error | undefined) => void) | null): void;

  /**
   * Starts a sync now and returns at once; no effect while one runs. Called right after
   * cloud.enqueue, or often, it keeps the modem on and costs power.
   */
  function now(): boolean;

  /**
   * Sets the longest time between syncs (a sync can come earlier) and reschedules the pending
   * one; the period counts from the end of the last sync. The default is one month.
   */
  function setSyncPeriod(syncPeriod: Interval<'s', 120, 7776000>): void;
}
