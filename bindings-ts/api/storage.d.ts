// storage: records kept in flash across reboots and power loss, keyed by number. Ids are whole
// numbers from 0 to 4294967295 (the spec says only "number"; flash record ids are 32-bit).

declare namespace storage {
  /**
   * Saves data (serialized, about 4 kB at most) under id, replacing what was there. Errors
   * carry no codes in this version: 'Not serializable value', 'Message is too big', 'Storage
   * system error', 'Not enough storage space'.
   * @until 0.0.9
   */
  function save(id: Int<0, 4294967295>, data: PureObject): void;
  /**
   * Saves data (serialized, about 12 kB at most) under id, replacing what was there, and
   * returns the bytes saved.
   * @since 0.1.5
   * @throws ESR0203 not serializable
   * @throws ESR0204 message too big
   * @throws ESR0201 storage error
   * @throws ESR0202 no storage space
   * @throws ESR0205 [since 0.2.6] data store timeout
   */
  function save(id: Int<0, 4294967295>, data: PureObject): number;

  /** The data saved under id, or undefined when there is none. */
  function read(id: Int<0, 4294967295>): unknown;

  /** Deletes the record id; true if it existed. */
  function remove(id: Int<0, 4294967295>): boolean;

  /** Calls handle for every record. */
  function readAll(handle: (id: number, data: unknown) => void): void;

  /** Deletes all records. */
  function clear(): void;

  /**
   * Flash use in bytes; the counts include the app, the records and the queued events.
   * @since 0.1.5
   */
  function getStats(): StorageStats;
}

/** Flash use, in bytes. */
interface StorageStats {
  total: number;
  used: number;
  free: number;
}
