// nfc: the NFC tag of 0.0.9. Its errors carry no codes: 'Invalid format', 'Too big',
// 'Invalid record type', 'Missing field'.

/**
 * The NFC tag.
 * @until 0.0.9
 */
declare namespace nfc {
  /**
   * Calls callback with true when another device enters the field and false when it leaves;
   * null unregisters.
   */
  function onFieldChanged(callback: ((field: boolean) => void) | null): void;
  /**
   * Makes the tag writable and calls callback with the raw NDEF message written; null
   * unregisters and makes the tag read-only again.
   */
  function onWrite(callback: ((data: ArrayBuffer) => void) | null): void;
  /**
   * Sets the NDEF message the tag presents; null clears it and restores the initial message.
   * Throws 'Invalid format', 'Too big', 'Invalid record type' or 'Missing field'.
   */
  function setMsg(message: NdefRecord[] | null): void;

  /**
   * NDEF record types. The spec does not give the numbers; these are the firmware's own
   * (1, 2, 3), so use the names.
   */
  enum RecordType {
    /** A text record: uses text. */
    TEXT = 1,
    /** A URI record: uses uri. */
    URI = 2,
    /** An external-type record: uses type and data. */
    EXTERNAL = 3,
  }
}

/** A record of the message given to nfc.setMsg; recordType says which other fields apply. */
interface NdefRecord {
  /** An nfc.RecordType. */
  recordType: number;
  /** TEXT: the text. */
  text?: string;
  /** URI: the URI. */
  uri?: string;
  /** EXTERNAL: the external type name. */
  type?: string;
  /** EXTERNAL: the payload as a hex string. */
  data?: string;
}
