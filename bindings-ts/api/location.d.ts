// location: GNSS positions. Absent on hardware without GNSS.

declare namespace location {
  /** The distance between two positions (their lat and long), in metres. */
  function distance(from: LatLong, to: LatLong): number;

  /**
   * Starts position updates: callback gets a position once minInterval has passed and the device
   * moved more than minDistance. One callback at a time: a new call replaces it. Updates last
   * 15 minutes unless options.timeout says otherwise. The promise resolves with the last known
   * position (or undefined) on timeout or location.stop(true), and is rejected when a fix fails
   * or minInterval is greater than timeout.
   * @throws ESR0502 minInterval is greater than timeout (a RangeError, as a rejection)
   * @throws ESR0901 no fix within maxFixWait
   * @throws ESR0902 the GNSS receiver failed
   */
  function startUpdates(callback: (position: Position) => void, options?: LocationOptions): Promise<Position | undefined>;

  /**
   * For tests: while updates run, the callback gets this position (with mock 1) in place of real
   * ones; the last known position is not affected. null stops mocking.
   */
  function mock(position: MockPosition | null): void;

  /**
   * Stops position updates; with resolvePromise true the promise of startUpdates resolves.
   * @default resolvePromise true
   */
  function stop(resolvePromise?: boolean): void;
}

/** A position reported by location.startUpdates. */
interface Position {
  /** Latitude, degrees. */
  lat: number;
  /** Longitude, degrees. */
  long: number;
  /** Speed, km/h. */
  speed: number;
  /** Altitude, m. */
  alt: number;
  /** Heading, degrees. */
  head: number;
  /** Precision (HDOP). */
  prec: number;
  /** Distance from the last position reported, m. */
  diff: number;
  /** UTC time of the fix, ms since 1970. */
  ts: number;
  /** Satellites used. */
  sat: number;
  /** 1 on mocked positions only. */
  mock: number;
}

/** A point for location.distance: a Position, or any object with lat and long. */
interface LatLong {
  /** Latitude, degrees. */
  lat: Num<-90, 90>;
  /** Longitude, degrees. */
  long: Num<-180, 180>;
}

/**
 * A position for location.mock: lat and long are needed; the other fields of a Position are
 * optional (a Position can be passed as it is).
 */
interface MockPosition {
  /** Latitude, degrees. */
  lat: Num<-90, 90>;
  /** Longitude, degrees. */
  long: Num<-180, 180>;
  /** Speed, km/h. */
  speed?: AtLeast<0>;
  /** Altitude, m. */
  alt?: number;
  /** Heading, degrees. */
  head?: Num<0, 360>;
  /** Precision (HDOP). */
  prec?: AtLeast<0>;
  /** Satellites used. */
  sat?: Int<0, 255>;
}

/** Options of location.startUpdates. */
interface LocationOptions {
  /**
   * How long updates run; 0: until location.stop.
   * @default 900
   */
  timeout?: Interval<'s'>;
  /**
   * Least time between two positions reported.
   * @default 5
   */
  minInterval?: Interval<'s'>;
  /**
   * Least distance moved between two positions reported, m; 0: not used.
   * @default 0
   */
  minDistance?: AtLeast<0>;
  /**
   * Longest wait for a fix before GNSS is turned off for minInterval; when minInterval is
   * shorter than this, GNSS stays on.
   * @since 0.2.6
   * @default 180
   */
  maxFixWait?: Interval<'s', 40, 600>;
}
