/*
 * rt_cloud_limits.h: the device <-> cloud protocol's limits (docs/cloud-protocol.md §5).
 * Generated from bindings-ts/src/cloud/limits.ts by limitsHeader.ts: do not edit by hand
 * (UPDATE_GOLDEN=1 node --test bindings-ts/dist/test/cloudLimits.test.js rewrites it).
 */
#ifndef RT_CLOUD_LIMITS_H
#define RT_CLOUD_LIMITS_H

#define RT_CLOUD_LIMIT_PAYLOAD_BYTES 8192u
#define RT_CLOUD_LIMIT_VARIABLE_BYTES 1024u
#define RT_CLOUD_LIMIT_VARIABLES 30u
#define RT_CLOUD_LIMIT_TYPE_CHARS 30u
#define RT_CLOUD_LIMIT_BATCH_EVENTS 256u
#define RT_CLOUD_LIMIT_FRAME_BYTES 32768u
#define RT_CLOUD_LIMIT_FRAME_DEPTH 32u
#define RT_CLOUD_LIMIT_PAYLOAD_DEPTH 29u
#define RT_CLOUD_LIMIT_MQTT_PACKET_BYTES 33792u
#define RT_CLOUD_LIMIT_KEEPALIVE_MIN 10u
#define RT_CLOUD_LIMIT_KEEPALIVE_MAX 1200u

#endif /* RT_CLOUD_LIMITS_H */
