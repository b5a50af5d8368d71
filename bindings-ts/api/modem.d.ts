// modem (lte in 0.0.9): LTE network diagnostics and airplane mode. A query called again while
// the same query is pending rejects the earlier promise; airplane mode rejects all of them.

/**
 * The LTE modem; lte in 0.0.9.
 * @since 0.1.5
 */
declare namespace modem {
  /**
   * Searches the operators in range. Can take minutes and much power; up to 30 minutes with
   * NB-IoT enabled.
   */
  function getOperators(): Promise<ModemOperator[]>;
  /** The state of the network connection. */
  function getStatus(): Promise<NetworkStatus>;
  /** The neighbouring cells, with their signal; up to 30 minutes with NB-IoT enabled. */
  function getCells(): Promise<NetworkStatus[]>;
  /** The SIM and modem identifiers. */
  function getInfo(): Promise<ModemInfo>;
  /**
   * With state true, turns cellular communication off: the LTE module shuts down, heartbeat
   * reports stop, pending LTE promises are rejected and syncs wait. false turns it on again.
   * @versions 0.1.5
   */
  function setAirplaneMode(state: boolean): void;
  /**
   * With state true, turns cellular communication off: the LTE module shuts down, heartbeat
   * reports stop, pending LTE promises are rejected and syncs wait. false turns it on again.
   * @since 0.2.6
   * @default state true
   */
  function setAirplaneMode(state?: boolean): void;
}

/**
 * The modem of 0.0.9, renamed modem in 0.1.5 (same natives).
 * @until 0.0.9
 */
declare namespace lte {
  /**
   * Searches the operators in range. Can take minutes and much power.
   * @native rt_modem_getOperators
   */
  function getOperators(): Promise<ModemOperator[]>;
  /**
   * The state of the network connection.
   * @native rt_modem_getStatus
   */
  function getStatus(): Promise<NetworkStatus>;
  /**
   * The SIM and modem identifiers.
   * @native rt_modem_getInfo
   */
  function getInfo(): Promise<ModemInfo>;
  /**
   * With state true, turns cellular communication off: the LTE module shuts down, heartbeat
   * reports stop, pending LTE promises are rejected and syncs wait. false turns it on again.
   * @native rt_modem_setAirplaneMode
   */
  function setAirplaneMode(state: boolean): void;
}

/** An operator found by getOperators. */
interface ModemOperator {
  name: string;
  /** Radio technology, such as 'gsm'. */
  type: string;
  /** 'curr' for the current operator, 'avail' for an available one. */
  status: string;
}

/** The network state (getStatus) or a neighbouring cell (getCells). */
interface NetworkStatus {
  /** Operator name. */
  name: string;
  /** Signal quality. */
  signal: number;
  /**
   * Received signal strength, dBm.
   * @since 0.1.5
   */
  rssi?: number;
  /**
   * Reference signal received power, dBm.
   * @since 0.1.5
   */
  rsrp?: number;
  /**
   * Reference signal received quality, dB.
   * @since 0.1.5
   */
  rsrq?: number;
  mcc: number;
  mnc: number;
  lac: number;
  cell: number;
  /** 'GSM', 'LTE Cat. M1' or 'NB IoT'. */
  tech: string;
  band: string;
}

/** SIM and modem identifiers. */
interface ModemInfo {
  iccid: string;
  imei: string;
  imsi: string;
}
