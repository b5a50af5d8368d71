// cloud: events and variables sent at the next synchronisation, and messages from the cloud.
//
// The type of an event is at most 30 characters in every version. Only the 0.2.6 documentation
// states the limit, but it is the cloud's limit for all firmware: refusing a longer type at the
// call is better than an event the cloud drops after it was queued.

declare namespace cloud {
  /**
   * Queues an event for the next synchronisation; the device id and a timestamp are added. May
   * block. The serialized message may be about 4 kB. Errors carry no codes in this version:
   * 'Not serializable value', 'Message is too big', 'Storage system error', 'Not enough storage
   * space'.
   * @until 0.0.9
   */
  function enqueue(type: Str<30>, message: PureObject): void;
  /**
   * Queues an event for the next synchronisation and returns the bytes it takes in the queue;
   * the device id and a timestamp are added. May block. The serialized message may be about
   * 8 kB. A volatile event may be deleted to free storage; a non-volatile one is delivered
   * eventually, possibly late (long sync period, poor reception, low battery).
   * @since 0.1.5
   * @throws ESR0203 not serializable
   * @throws ESR0204 message too big
   * @throws ESR0201 storage error
   * @throws ESR0202 no storage space
   * @throws ESR0104 execution interrupted
   */
  function enqueue(type: Str<30>, message: PureObject, options?: EnqueueOptions): number;

  /**
   * Sets a variable sent at the next synchronisation if its value changed since the last one;
   * it appears in the cloud as an ordinary event. At most 30 variables, each value at most 1 kB
   * serialized. Kept in memory only: not persistent.
   * @since 0.2.6
   * @throws ESR0203 not serializable
   */
  function setVar(name: Str<30>, message: PureObject): number;

  /**
   * Sets the handler of messages from the cloud, which arrive during synchronisation; it
   * replaces the previous one, null disables it.
   */
  function onReceive(msgHandler: ((msg: CloudMessage) => void) | null): void;
}

/** Options of cloud.enqueue. */
interface EnqueueOptions {
  /**
   * true: the event may be deleted when storage runs short.
   * @default true
   */
  volatile?: boolean;
}

/** A message from the cloud. */
interface CloudMessage {
  /** The message type. */
  type: string;
  /** When it was queued in the cloud, ms since 1970 (UTC). */
  ts: number;
  /** The content, a JSON object. */
  payload: { [key: string]: unknown };
}
