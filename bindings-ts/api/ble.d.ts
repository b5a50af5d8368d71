// ble: advertising, scanning, and the beacon packet builders and parser.

declare namespace ble {
  /**
   * Advertises the packet the callback returns; the callback is called again before each
   * advertisement, with the transmit power in dBm, so the content can change over time. A
   * builder such as ble.build.eddystoneTlm can be passed itself. Advertises at -4 dBm every
   * 500 ms until the handle changes that.
   * @throws ESR0004 [since 0.1.5] no free advertiser
   */
  function advertise(callback: (txPower: number) => BlePacket): Advertiser;
  /**
   * Advertises a fixed packet (one made by ble.build, or shaped like a scan record). Advertises at
   * -4 dBm every 500 ms until the handle changes that.
   * @throws ESR0004 [since 0.1.5] no free advertiser
   */
  function advertise(data: BlePacket): Advertiser;

  /**
   * Scans for duration milliseconds (0: until ble.stopScan), calling callback with every packet
   * received. The promise resolves when the scan ends by time or by ble.stopScan(true). Slow work
   * inside the callback can make packets be missed.
   * @until 0.1.5
   * @default duration 10000
   */
  function startScan(callback: (scanRecord: ScanRecord) => void, duration?: Interval<'ms'>): Promise<void>;
  /**
   * Scans for duration milliseconds (0: until ble.stopScan), calling callback with every packet
   * received. The promise resolves when the scan ends by time or by ble.stopScan(true). Slow work
   * inside the callback can make packets be missed.
   * @since 0.2.4
   * @default duration 10000
   */
  function startScan(
    callback: (scanRecord: ScanRecord) => void,
    duration?: Interval<'ms'>,
    options?: ScanOptions
  ): Promise<void>;

  /**
   * Recognises iBeacon, Eddystone and manufacturer packets in a scan record. The result's type
   * says which; a falsy result means the packet was not recognised.
   */
  function parse(scanRecord: ScanRecord): ParsedPacket | undefined;

  /**
   * Stops scanning at once; with resolvePromise true the promise of ble.startScan resolves.
   * @default resolvePromise true
   */
  function stopScan(resolvePromise?: boolean): void;

  /** Builders of beacon packets for ble.advertise. */
  namespace build {
    /**
     * An Eddystone-URL packet.
     * @param url The URL to broadcast.
     * @param measuredPower dBm received at 0 m.
     * @default measuredPower -20
     */
    function eddystoneUrl(url: Str<50>, measuredPower?: Int<-127, 127>): BlePacket;
    /**
     * An Eddystone-TLM packet with the current telemetry. Pass the function itself to
     * ble.advertise so that each advertisement carries fresh values.
     */
    function eddystoneTlm(): BlePacket;
    /**
     * An Eddystone-UID packet.
     * @param namespace The 10-byte namespace id.
     * @param instance The 6-byte instance id.
     * @param measuredPower dBm received at 0 m.
     * @default measuredPower -20
     */
    function eddystoneUid(
      namespace: Bytes<10, 10>,
      instance: Bytes<6, 6>,
      measuredPower?: Int<-127, 127>
    ): BlePacket;
    /**
     * An iBeacon packet.
     * @param uuid The proximity UUID, 1 to 16 bytes; a shorter one is padded with zero bytes to
     * the 16 the packet carries (empty is refused: it is always a mistake, such as a missing id).
     * @param measuredPower dBm received at 1 m.
     * @default measuredPower -50
     */
    function iBeacon(
      uuid: Bytes<1, 16>,
      major: Int<1, 65535>,
      minor: Int<1, 65535>,
      measuredPower?: Int<-127, 127>
    ): BlePacket;
    /**
     * An AltBeacon packet.
     * @param id The beacon id, 16 to 20 bytes.
     * @param manufacturerId The company identifier the packet carries.
     * @param measuredPower dBm received at 1 m.
     * @param reserved The reserved byte of the format.
     * @since 0.1.5
     * @default measuredPower -50
     * @default reserved 0
     */
    function altBeacon(
      id: Bytes<16, 20>,
      manufacturerId: Int<1, 65535>,
      measuredPower?: Int<-127, 127>,
      reserved?: Int<0, 256>
    ): BlePacket;
    /**
     * The maker's (Estimote) location packet; ble.build.vendorLocation is the same function, as
     * the spec writes it.
     * @param measuredPower dBm received at 1 m.
     * @default measuredPower -50
     * @native rt_ble_build_vendorLocation
     * @alias vendorLocation
     */
    function estimoteLocation(measuredPower?: Int<-127, 127>): BlePacket;
    /**
     * The maker's (Estimote) location-trigger packet; advertise it every 100 ms at -4 dBm.
     * ble.build.vendorLocationTrigger is the same function.
     * @param measuredPower dBm received at 1 m.
     * @default measuredPower -50
     * @native rt_ble_build_vendorLocationTrigger
     * @alias vendorLocationTrigger
     */
    function estimoteLocationTrigger(measuredPower?: Int<-127, 127>): BlePacket;
    /**
     * The maker's (Estimote) telemetry packet with the current values. Pass the function itself
     * to ble.advertise so that each advertisement carries fresh values.
     * ble.build.vendorTelemetry is the same function.
     * @native rt_ble_build_vendorTelemetry
     * @alias vendorTelemetry
     */
    function estimoteTelemetry(): BlePacket;
    /**
     * The maker's (Estimote) nearable packet with the current values. Pass the function itself
     * to ble.advertise so that each advertisement carries fresh values.
     * ble.build.vendorNearable is the same function.
     * @since 0.2.4
     * @native rt_ble_build_vendorNearable
     * @alias vendorNearable
     */
    function estimoteNearable(): BlePacket;
  }
}

/**
 * Handle of ble.advertise. The methods other than stop() return the handle, so calls chain:
 * ble.advertise(packet).interval(100).power(0).
 * @handle advertiser
 */
interface Advertiser {
  /** Stops advertising; stopping a stopped advertiser has no effect. */
  stop(): void;
  /**
   * Pauses advertising until resume(); no effect on a stopped advertiser.
   * @since 0.2.6
   */
  pause(): Advertiser;
  /**
   * Resumes a paused advertiser; no effect on a stopped advertiser.
   * @since 0.2.6
   */
  resume(): Advertiser;
  /** Sets the time between advertisements (500 ms until set). */
  interval(interval: Interval<'ms', 100>): Advertiser;
  /**
   * Sets the transmit power in dBm (-4 until set). A value between the allowed ones snaps down:
   * 7 becomes 4.
   */
  power(power: SnapDown<[-40, -20, -16, -12, -8, -4, 0, 4, 8, 20]>): Advertiser;
}

/**
 * A packet as advertised: what ble.build returns and ble.advertise accepts. A scan record can be
 * advertised as it is (its other fields are ignored).
 */
interface BlePacket {
  /** Advertised name. */
  name?: string;
  /** Manufacturer-specific data, starting with the company identifier. */
  manufData?: ArrayBuffer;
  /** Service data: key is a service UUID as a hex string, value the data. */
  serviceData?: { [uuid: string]: ArrayBuffer };
  /** Service UUIDs. */
  serviceUUIDs?: ArrayBuffer[];
  /** Advertised transmit power, dBm. */
  txPower?: number;
  /** Advertising flags. */
  flags?: number;
}

/** A received packet: the argument of the ble.startScan callback. */
interface ScanRecord {
  /** Received signal strength, dBm. */
  rssi: number;
  /**
   * Advertising channel it arrived on: 37, 38 or 39.
   * @since 0.0.8
   */
  channel: number;
  /**
   * true for a scan response.
   * @since 0.0.9
   */
  scanResponse: boolean;
  /**
   * true for a connectable packet.
   * @since 0.0.9
   */
  connectable: boolean;
  /** MAC address of the sender. */
  addr: ArrayBuffer;
  /** Advertised name. */
  name?: string;
  /** Manufacturer-specific data. */
  manufData?: ArrayBuffer;
  /** Service data: key is a service UUID as a hex string, value the data. */
  serviceData?: { [uuid: string]: ArrayBuffer };
  /** Service UUIDs. */
  serviceUUIDs?: ArrayBuffer[];
  /** Advertised transmit power, dBm. */
  txPower?: number;
  /** Advertising flags. */
  flags?: number;
}

/** Options of ble.startScan. */
interface ScanOptions {
  /** true: send no scan requests, so no scan responses arrive. @default false */
  passive?: boolean;
  /** Report the scan requests of other devices; works only while Bluetooth is disconnected. @default false */
  scanRequests?: boolean;
  /** Time between the starts of two scan windows. @default 150 */
  interval?: Interval<'ms', 1, 10240>;
  /** Time spent listening in each scan interval. @default 100 */
  window?: Interval<'ms', 1, 10240>;
  /**
   * Advertising channels to listen on.
   * @since 0.2.5
   * @default [37, 38, 39]
   */
  channels?: OneOfEach<[37, 38, 39]>;
  /** Deliver one packet per MAC address in this scan session (each startScan starts one). @default false */
  deduplicate?: boolean;
}

/** What ble.parse recognised; the other fields depend on the type. */
interface ParsedPacket {
  /** The packet format. */
  type: string;
}
