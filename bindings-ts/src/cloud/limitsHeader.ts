// rt_cloud_limits.h from the limit table (limits.ts): the device's C runtime checks the same
// numbers as the cloud without a second copy written by hand. The header is committed (the
// firmware builds without node); test/cloudLimits.test.ts fails when it differs from what this
// writes, and UPDATE_GOLDEN=1 rewrites it.
import { LIMITS, LimitName } from './limits';

/** The limits the device's C code uses, with the C name each one gets. */
const C_NAMES: [LimitName, string][] = [
  ['payloadBytes', 'PAYLOAD_BYTES'],
  ['variableBytes', 'VARIABLE_BYTES'],
  ['variables', 'VARIABLES'],
  ['typeChars', 'TYPE_CHARS'],
  ['batchEvents', 'BATCH_EVENTS'],
  ['frameBytes', 'FRAME_BYTES'],
  ['frameDepth', 'FRAME_DEPTH'],
  ['payloadDepth', 'PAYLOAD_DEPTH'],
  ['mqttPacketBytes', 'MQTT_PACKET_BYTES'],
  ['keepAliveMin', 'KEEPALIVE_MIN'],
  ['keepAliveMax', 'KEEPALIVE_MAX'],
];

export function limitsHeader(): string {
  const lines = [
    '/*',
    ' * rt_cloud_limits.h: the device <-> cloud protocol\'s limits (docs/cloud-protocol.md §5).',
    ' * Generated from bindings-ts/src/cloud/limits.ts by limitsHeader.ts: do not edit by hand',
    ' * (UPDATE_GOLDEN=1 node --test bindings-ts/dist/test/cloudLimits.test.js rewrites it).',
    ' */',
    '#ifndef RT_CLOUD_LIMITS_H',
    '#define RT_CLOUD_LIMITS_H',
    '',
  ];
  for (const [name, c] of C_NAMES) lines.push(`#define RT_CLOUD_LIMIT_${c} ${LIMITS[name]}u`);
  lines.push('', '#endif /* RT_CLOUD_LIMITS_H */', '');
  return lines.join('\n');
}
