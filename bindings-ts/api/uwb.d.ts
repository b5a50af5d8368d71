// uwb: ultra-wideband ranging of 0.1.5 (the AI hardware variant).

/**
 * Ultra-wideband ranging.
 * @versions 0.1.5
 */
declare namespace uwb {
  /**
   * Starts ranging as role (a uwb.Role). An initiator measures the distance to responders with
   * the same panId; both sides' callbacks (optional for either role) get each measurement: an
   * initiator's names the responder, a responder's names the initiator. The promise resolves on
   * uwb.stop(true) or timeout; every error, argument errors included, rejects it.
   * @rejects
   * @throws ESR1701 bad arguments for the role
   * @throws ESR1703 invalid options
   * @invalid role ESR1701
   * @invalid options ESR1703
   */
  function start(role: Int<0, 1>, options?: UwbOptions, callback?: (distance: UwbMeasurement) => void): Promise<void>;
  /**
   * Stops ranging; with resolvePromise true the promise of uwb.start resolves.
   * @default resolvePromise true
   */
  function stop(resolvePromise?: boolean): void;

  /** Roles for uwb.start. */
  enum Role {
    RESPONDER = 0,
    INITIATOR = 1,
  }
}

/** Options of uwb.start; the spec gives no defaults, so an absent field is the firmware's choice. */
interface UwbOptions {
  /** How long ranging runs; 0: until uwb.stop. */
  timeout?: Interval<'s'>;
  /** High performance or longer range. */
  mode?: number;
  /** Network id; responders and initiators must use the same one. */
  panId?: Int<0, 65535>;
  /** Minimum distance, m. */
  minDistance?: AtLeast<0>;
  /** Maximum distance, m. */
  maxDistance?: AtLeast<0>;
}

/** A distance measured by uwb.start. */
interface UwbMeasurement {
  /** Id of the other device. */
  id: string;
  /** Distance, m. */
  dist: number;
  /** Link quality of the measurement. */
  lqi: number;
}
