// The protocol's limits (docs/cloud-protocol.md §5), in one table shared by every side that
// checks them: the cloud's decoders and its HTTP API (protocol.ts, cbor.ts, http routes), the
// embedded broker, and the device's C runtime, whose src/runtime/cloud/rt_cloud_limits.h is
// generated from this table (limitsHeader.ts; test/cloudLimits.test.ts fails when it is stale).
// One table because a limit checked differently on two sides is a message the cloud accepts
// and the device cannot take: such a message blocked a device's sync for good.

export const LIMITS = {
  /** Serialized (CBOR) size of one event payload or message payload (the API's "about 8 kB"). */
  payloadBytes: 8192,
  /** Serialized size of one variable value (cloud.setVar: 1 kB). */
  variableBytes: 1024,
  /** Variables one device keeps (cloud.setVar). */
  variables: 30,
  /** Event type, variable name and message type: 1 to 30 characters. */
  typeChars: 30,
  /** Events in one batch. */
  batchEvents: 256,
  /** CBOR size of one frame (an upload batch or a message frame). */
  frameBytes: 32768,
  /** Nesting of arrays and maps in a frame, the protocol's own three levels included. */
  frameDepth: 32,
  /** Nesting of arrays and maps in one payload: the frame's depth less the protocol's own three. */
  payloadDepth: 29,
  /** MQTT "remaining length" of any packet; a larger one closes the connection. */
  mqttPacketBytes: 33792,
  /** MQTT keep-alive a device may ask for, seconds (devices use 60). */
  keepAliveMin: 10,
  keepAliveMax: 1200,
  /** Device public id: 1 to 32 bytes, written as lowercase hex. */
  idHexMin: 2,
  idHexMax: 64,
} as const;

export type LimitName = keyof typeof LIMITS;
