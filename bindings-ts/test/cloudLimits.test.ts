// One limit table for the cloud and the device: the C header the firmware includes is the one
// limits.ts generates, and the C code takes its numbers from it. A limit the two sides counted
// differently let the API accept a message the device could never take.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { LIMITS } from '../src/cloud/limits';
import { limitsHeader } from '../src/cloud/limitsHeader';

const ROOT = path.join(__dirname, '..', '..', '..');
const HEADER = path.join(ROOT, 'src', 'runtime', 'cloud', 'rt_cloud_limits.h');

test('src/runtime/cloud/rt_cloud_limits.h is the one limits.ts generates (UPDATE_GOLDEN=1 rewrites it)', () => {
  const want = limitsHeader();
  if (process.env.UPDATE_GOLDEN) fs.writeFileSync(HEADER, want);
  assert.equal(fs.readFileSync(HEADER, 'utf8'), want);
});

test("the device's C limits come from the generated header, not from numbers of their own", () => {
  const proto = fs.readFileSync(path.join(ROOT, 'src', 'runtime', 'cloud', 'rt_cloud_proto.h'), 'utf8');
  const queue = fs.readFileSync(path.join(ROOT, 'src', 'runtime', 'cloud', 'rt_cloud_queue.h'), 'utf8');
  assert.match(proto, /#define RT_CLOUD_PAYLOAD_DEPTH RT_CLOUD_LIMIT_PAYLOAD_DEPTH\b/);
  assert.match(proto, /#define RT_CLOUD_FRAME_MAX RT_CLOUD_LIMIT_FRAME_BYTES\b/);
  assert.match(queue, /#define RT_CLOUD_PAYLOAD_MAX RT_CLOUD_LIMIT_PAYLOAD_BYTES\b/);
  assert.match(queue, /#define RT_CLOUD_VAR_VALUE_MAX RT_CLOUD_LIMIT_VARIABLE_BYTES\b/);
  assert.match(queue, /#define RT_CLOUD_VARS_MAX RT_CLOUD_LIMIT_VARIABLES\b/);
});

test("a payload's depth is the frame's less the protocol's own three levels", () => {
  assert.equal(LIMITS.payloadDepth, LIMITS.frameDepth - 3);
  assert.ok(LIMITS.keepAliveMin <= 60 && 60 <= LIMITS.keepAliveMax, 'the devices use 60 s');
});
