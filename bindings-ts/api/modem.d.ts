// modem (lte in 0.0.9): LTE network diagnostics and airplane mode. A query called again while
// the same query is pending rejects the earlier promise; airplane mode rejects all of them. The
// rejections carry the maker's modem codes (ESR04xx), listed with each query.

/**
 * The LTE modem; lte in 0.0.9.
 * @since 0.1.5
 */
declare namespace modem {
  /**
   * Searches the operators in range. Can take minutes and much power; up to 30 minutes with
   * NB-IoT enabled.
   * @throws ESR0410 airplane mode is on (the query is refused, or was pending when it was turned on)
   * @throws ESR0407 the same query was called again before this one answered
   * @throws ESR0003 the hardware has no LTE modem
   * @throws ESR0403 the modem cannot run the query now
   * @throws ESR0401 the modem failed the query
   */
  function getOperators(): Promise<ModemOperator[]>;
  /**
   * The state of the network connection.
   * @throws ESR0410 airplane mode is on (the query is refused, or was pending when it was turned on)
   * @throws ESR0407 the same query was called again before this one answered
   * @throws ESR0003 the hardware has no LTE modem
   * @throws ESR0403 the modem cannot run the query now
   * @throws ESR0401 the modem failed the query
   * @throws ESR0415 not registered to a network
   */
  function getStatus(): Promise<NetworkStatus>;
  /**
   * The neighbouring cells, with their signal; up to 30 minutes with NB-IoT enabled.
   * @throws ESR0410 airplane mode is on (the query is refused, or was pending when it was turned on)
   * @throws ESR0407 the same query was called again before this one answered
   * @throws ESR0003 the hardware has no LTE modem
   * @throws ESR0403 the modem cannot run the query now
   * @throws ESR0401 the modem failed the query
   */
  function getCells(): Promise<NetworkStatus[]>;
  /**
   * The SIM and modem identifiers.
   * @throws ESR0410 airplane mode is on (the query is refused, or was pending when it was turned on)
   * @throws ESR0407 the same query was called again before this one answered
   * @throws ESR0003 the hardware has no LTE modem
   * @throws ESR0403 the modem cannot run the query now
   * @throws ESR0401 the modem failed the query
   * @throws ESR0405 the modem has no SIM
   */
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
   * @throws ESR0410 airplane mode is on (the query is refused, or was pending when it was turned on)
   * @throws ESR0407 the same query was called again before this one answered
   * @throws ESR0003 the hardware has no LTE modem
   * @throws ESR0403 the modem cannot run the query now
   * @throws ESR0401 the modem failed the query
   */
  function getOperators(): Promise<ModemOperator[]>;
  /**
   * The state of the network connection.
   * @native rt_modem_getStatus
   * @throws ESR0410 airplane mode is on (the query is refused, or was pending when it was turned on)
   * @throws ESR0407 the same query was called again before this one answered
   * @throws ESR0003 the hardware has no LTE modem
   * @throws ESR0403 the modem cannot run the query now
   * @throws ESR0401 the modem failed the query
   * @throws ESR0415 not registered to a network
   */
  function getStatus(): Promise<NetworkStatus>;
  /**
   * The SIM and modem identifiers.
   * @native rt_modem_getInfo
   * @throws ESR0410 airplane mode is on (the query is refused, or was pending when it was turned on)
   * @throws ESR0407 the same query was called again before this one answered
   * @throws ESR0003 the hardware has no LTE modem
   * @throws ESR0403 the modem cannot run the query now
   * @throws ESR0401 the modem failed the query
   * @throws ESR0405 the modem has no SIM
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
