// The SMP client's codec against bytes written out from the MCUmgr documentation (the same
// hand-assembled frames as tests/c/test_smp.c): header layout, CBOR bodies, serial framing with
// base64 and CRC16; and the pieces around it: device addresses, the client's retries and error
// answers, chunk sizing, BLE reassembly and the message when BLE support is missing.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CliIo } from '../src/cli/io';
import { main } from '../src/cli/main';
import {
  chunkSizeFor,
  crc16,
  decodeHeader,
  decodePacket,
  DeviceError,
  encodeHeader,
  encodePacket,
  encodeSerial,
  FsRc,
  Group,
  loadNoble,
  NOBLE_MISSING,
  openBle,
  OsCommand,
  PacketAssembler,
  parseDevice,
  SerialDecoder,
  SmpClient,
  SmpError,
  SmpTimeoutError,
  SmpTransport,
  STAGING_NAME,
} from '../src/smp';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

test('header: Res|Ver|OP, flags, length (BE), group (BE), sequence, command', () => {
  const b = encodeHeader({ version: 1, op: 2, flags: 0, length: 0x1234, group: 0x40, seq: 0xab, command: 6 });
  assert.equal(toHex(b), toHex(hex('0a 00 1234 0040 ab 06')));
  assert.deepEqual(decodeHeader(b), { version: 1, op: 2, flags: 0, length: 0x1234, group: 0x40, seq: 0xab, command: 6 });
  assert.throws(() => decodeHeader(hex('2a 00 0000 0000 00 00')), /reserved bits/);
  assert.throws(() => decodeHeader(hex('0a 00 0000 0000 00')), /8 bytes/);
});

test('packets: echo request and answer, parameters, errors in both SMP versions', () => {
  const echo = encodePacket({ version: 0, op: 2, group: 0, seq: 0x42, command: 0 }, { d: 'hello' });
  assert.equal(toHex(echo), toHex(hex('02 00 0009 0000 42 00  a1 61 64 65 68656c6c6f')));
  assert.deepEqual(decodePacket(hex('03 00 0009 0000 42 00  a1 61 72 65 68656c6c6f')).body, { r: 'hello' });
  const params = decodePacket(hex('01 00 0018 0000 07 06  a2 68 6275665f73697a65 19 0400 69 6275665f636f756e74 04'));
  assert.deepEqual(params.body, { buf_size: 1024, buf_count: 4 });
  assert.deepEqual(decodePacket(hex('0b 00 0011 0008 11 00  a1 63 657272 a2 65 67726f7570 08 62 7263 02')).body, {
    err: { group: 8, rc: 2 },
  });
  assert.deepEqual(decodePacket(hex('03 00 0005 0008 12 00  a1 62 7263 0b')).body, { rc: 11 });
  // Byte strings go out as plain CBOR byte strings, maps in their shortest form.
  const upload = encodePacket({ version: 1, op: 2, group: 8, seq: 1, command: 0 }, { off: 0, data: new Uint8Array([1, 2]) });
  assert.equal(toHex(upload), toHex(hex('0a 00 000e 0008 01 00  a2 636f6666 00 6464617461 42 0102')));
  assert.throws(() => decodePacket(hex('03 00 0006 0000 42 00  a1 61 72 61 78')), /says 6 bytes/);
  assert.throws(() => decodePacket(hex('03 00 0001 0000 42 00  01')), /not a CBOR map/);
});

// The echo request framed by hand (smp_transport.rst): 0x06 0x09, base64 of the length 0x0013,
// the packet and its CRC16 0xc109, a newline.
const ECHO_FRAME = Buffer.concat([hex('0609'), Buffer.from('ABMCAAAJAABCAKFhZGVoZWxsb8EJ\n', 'latin1')]);
// 184 bytes (i * 37 + 11) framed as Zephyr's mcumgr_serial_tx_pkt frames them.
const ZEPHYR_184 = Buffer.concat([
  hex('0609'),
  Buffer.from('ALoLMFV6n8TpDjNYfaLH7BE2W4Clyu8UOV6DqM3yFzxhhqvQ9Ro/ZImu0/gdQmeMsdb7IEVqj7TZ/iNIbZK33AEmS3CVut8EKU5zmL3iByxRdpvA5QovVHmew+gN\n', 'latin1'),
  hex('0414'),
  Buffer.from('Mld8ocbrEDVaf6TJ7hM4XYKnzPEWO2CFqs/0GT5jiK3S9xxBZouw1fofRGmOs9j9IkdskbbbACVKb5S53gMoTXKXvOEGK1B1mr/kCS5TeJ3C5wwxVnugxeoP\n', 'latin1'),
  hex('0414'),
  Buffer.from('NFl+oZM=\n', 'latin1'),
]);
const PKT_184 = Uint8Array.from({ length: 184 }, (_, i) => (i * 37 + 11) & 0xff);

test('serial framing: CRC16/XMODEM, one frame, three frames as Zephyr splits them', () => {
  assert.equal(crc16(Buffer.from('123456789')), 0x31c3);
  const echo = hex('02 00 0009 0000 42 00  a1 61 64 65 68656c6c6f');
  assert.equal(toHex(encodeSerial(echo)), toHex(ECHO_FRAME));
  assert.equal(toHex(encodeSerial(PKT_184)), toHex(ZEPHYR_184));
  for (let n = 1; n <= 400; n++) {
    const pkt = Uint8Array.from({ length: n }, (_, i) => (i * 13) & 0xff);
    const framed = encodeSerial(pkt);
    for (const line of framed.toString('latin1').split('\n').slice(0, -1)) assert.ok(line.length + 1 <= 127);
    assert.deepEqual(new SerialDecoder().feed(framed), [pkt]);
  }
});

test('serial decoder: byte by byte, console text passed on, bad frames dropped', () => {
  let text = '';
  const drops: string[] = [];
  const d = new SerialDecoder(
    (t) => (text += t),
    (why) => drops.push(why),
  );
  const stream = Buffer.concat([Buffer.from('uart:~$ \n'), ZEPHYR_184.subarray(0, 127), Buffer.from('[00:01] log\n'), ZEPHYR_184.subarray(127)]);
  const got: Uint8Array[] = [];
  for (const byte of stream) got.push(...d.feed(Uint8Array.of(byte)));
  assert.deepEqual(got, [PKT_184]);
  assert.equal(text, 'uart:~$ \n[00:01] log\n');

  const bad = Buffer.from(ECHO_FRAME);
  bad[10] = bad[10] === 0x41 ? 0x42 : 0x41;
  assert.deepEqual(d.feed(bad), []);
  const notB64 = Buffer.from(ECHO_FRAME);
  notB64[5] = 0x2a;
  assert.deepEqual(d.feed(notB64), []);
  // The two continuation frames of a packet whose first frame was lost.
  assert.deepEqual(d.feed(ZEPHYR_184.subarray(127)), []);
  assert.deepEqual(drops, ['bad CRC', 'bad base64', 'continuation without a first frame', 'continuation without a first frame']);
  // With a CR before the newline, as some terminals send it.
  const crlf = Buffer.concat([ECHO_FRAME.subarray(0, -1), Buffer.from('\r\n')]);
  assert.equal(d.feed(crlf).length, 1);
});

test('device addresses', () => {
  assert.deepEqual(parseDevice('udp:127.0.0.1'), { kind: 'udp', host: '127.0.0.1', port: 1337 });
  assert.deepEqual(parseDevice('udp:localhost:5000'), { kind: 'udp', host: 'localhost', port: 5000 });
  assert.deepEqual(parseDevice('udp:[::1]:7'), { kind: 'udp', host: '::1', port: 7 });
  assert.deepEqual(parseDevice('serial:/dev/ttyACM0'), { kind: 'serial', path: '/dev/ttyACM0' });
  assert.deepEqual(parseDevice('ble:Beacon-12'), { kind: 'ble', name: 'Beacon-12' });
  assert.throws(() => parseDevice('udp:host:99999'), /port must be 1 to 65535/);
  assert.throws(() => parseDevice('tcp:host'), /expected udp:HOST\[:PORT\], serial:\/dev\/tty\.\.\. or ble:NAME/);
  assert.throws(() => parseDevice('serial:'), /expected serial:/);
});

/** A transport whose device is a function; `lose` drops that many requests first. */
function fakeTransport(answer: (req: Uint8Array) => Uint8Array | undefined, lose = 0): SmpTransport & { sentPackets: Uint8Array[] } {
  let handler: (p: Uint8Array) => void = () => {};
  const sentPackets: Uint8Array[] = [];
  return {
    description: 'fake',
    stats: { sent: 0, received: 0 },
    sentPackets,
    send: async (p) => {
      sentPackets.push(p);
      if (lose > 0) {
        lose--;
        return;
      }
      const a = answer(p);
      if (a) setImmediate(() => handler(a));
    },
    onPacket: (h) => {
      handler = h;
    },
    onError: () => {},
    close: async () => {},
  };
}

function answerTo(req: Uint8Array, body: Record<string, unknown>): Uint8Array {
  const h = decodeHeader(req);
  return encodePacket({ version: h.version, op: h.op + 1, group: h.group, seq: h.seq, command: h.command }, body);
}

test('client: a lost request is sent again with the same sequence number', async () => {
  const t = fakeTransport((req) => answerTo(req, { r: 'x' }), 2);
  const client = new SmpClient(t, { timeoutMs: 30, retries: 2 });
  assert.deepEqual(await client.write(Group.OS, 0, { d: 'x' }), { r: 'x' });
  assert.equal(t.sentPackets.length, 3);
  assert.deepEqual(new Set(t.sentPackets.map((p) => p[6])).size, 1);
  // Answers to another sequence number, group or command are not this request's.
  const wrong = fakeTransport((req) => {
    const a = answerTo(req, {});
    a[6] ^= 1;
    return a;
  });
  const c2 = new SmpClient(wrong, { timeoutMs: 20, retries: 1 });
  await assert.rejects(c2.read(Group.OS, 6), (e: unknown) => e instanceof SmpTimeoutError && /no answer from fake after 2 tries of 20 ms/.test(e.message));
});

test('client: error answers become SmpError with what they mean', async () => {
  const t = fakeTransport((req) => answerTo(req, { err: { group: 8, rc: 2 } }));
  const client = new SmpClient(t, { timeoutMs: 100 });
  await assert.rejects(client.write(Group.FS, 0, {}), (e: unknown) => {
    assert.ok(e instanceof SmpError);
    assert.ok(e.is(Group.FS, FsRc.INVALID_NAME));
    assert.equal(e.message, 'the device does not accept this file name');
    return true;
  });
  const v1 = new SmpClient(fakeTransport((req) => answerTo(req, { rc: 257, msg: 'package is damaged' })), { timeoutMs: 100 });
  await assert.rejects(v1.write(Group.BEACON, 1, {}), /the device refused the package: package is damaged/);
  const busy = new SmpClient(fakeTransport((req) => answerTo(req, { rc: 10 })), { timeoutMs: 100 });
  await assert.rejects(busy.write(Group.FS, 0, {}), /busy with another upload/);
});

test('chunk size: the largest request fits the device buffer exactly', () => {
  for (const bufSize of [128, 384, 1024, 2475]) {
    const total = 123456;
    const chunk = chunkSizeFor(bufSize, total);
    const req = encodePacket(
      { version: 1, op: 2, group: 8, seq: 0, command: 0 },
      { off: total, data: new Uint8Array(chunk), name: STAGING_NAME, len: total, sha: new Uint8Array(32) },
    );
    assert.ok(req.length <= bufSize, `${req.length} > ${bufSize}`);
    assert.ok(req.length >= bufSize - 3, `${req.length} wastes room in ${bufSize}`);
  }
  assert.throws(() => chunkSizeFor(64, 1000), /too small/);
});

test('BLE: notifications reassembled by the header length', () => {
  const a = encodePacket({ version: 1, op: 3, group: 8, seq: 1, command: 0 }, { off: 100 });
  const b = encodePacket({ version: 1, op: 1, group: 0, seq: 2, command: 6 }, { buf_size: 1024, buf_count: 4 });
  const both = Buffer.concat([a, b]);
  const asm = new PacketAssembler();
  const got: Uint8Array[] = [];
  for (let i = 0; i < both.length; i += 5) got.push(...asm.push(both.subarray(i, i + 5)));
  assert.deepEqual(got.map(toHex), [toHex(a), toHex(b)]);
});

/** A stand-in for noble: one peripheral whose SMP characteristic echoes through `answer`. */
function fakeNoble(state: string, answer: (req: Uint8Array) => Uint8Array, mtu = 64): () => Promise<unknown> {
  const writes: number[] = [];
  const asm = new PacketAssembler();
  let notify: (d: Buffer) => void = () => {};
  const characteristic = {
    uuid: 'da2e7828fbce4e01ae9e261174997c48',
    subscribeAsync: async () => {},
    writeAsync: async (data: Buffer, withoutResponse: boolean) => {
      assert.equal(withoutResponse, true);
      assert.ok(data.length <= mtu - 3, `a write of ${data.length} bytes over an MTU of ${mtu}`);
      writes.push(data.length);
      for (const req of asm.push(data)) {
        const rsp = Buffer.from(answer(req));
        // Notifications of at most 20 bytes, as with the default MTU.
        for (let i = 0; i < rsp.length; i += 20) setImmediate(() => notify(rsp.subarray(i, i + 20)));
      }
    },
    on: (_event: 'data', cb: (d: Buffer) => void) => {
      notify = cb;
    },
  };
  const peripheral = {
    advertisement: { localName: 'Beacon-1' },
    mtu,
    connectAsync: async () => {},
    disconnectAsync: async () => {},
    discoverSomeServicesAndCharacteristicsAsync: async () => ({ characteristics: [characteristic] }),
    once: () => {},
  };
  const discover: ((p: unknown) => void)[] = [];
  const noble = {
    state,
    on: (event: string, cb: (x: unknown) => void) => {
      if (event === 'discover') discover.push(cb);
    },
    removeAllListeners: () => {},
    startScanningAsync: async () => {
      setImmediate(() => {
        for (const cb of discover) cb({ advertisement: { localName: 'Other' } });
        for (const cb of discover) cb(peripheral);
      });
    },
    stopScanningAsync: async () => {},
  };
  return () => Promise.resolve(noble);
}

test('BLE transport: requests split into ATT writes, answers reassembled from notifications', async () => {
  const echo = (req: Uint8Array): Uint8Array => {
    const body = decodePacket(req).body as { d: string };
    return answerTo(req, { r: body.d });
  };
  const transport = await openBle('Beacon-1', { load: fakeNoble('poweredOn', echo), scanMs: 1000 });
  const client = new SmpClient(transport, { timeoutMs: 1000 });
  const text = 'x'.repeat(500);
  assert.deepEqual(await client.write(Group.OS, OsCommand.ECHO, { d: text }), { r: text });
  assert.equal(transport.description, 'ble:Beacon-1');
  assert.ok(transport.stats.sent > 500 && transport.stats.received > 500);
  await client.close();
});

test('BLE: no adapter, or one that does not power on: one clear line', async () => {
  const never = (): Uint8Array => new Uint8Array(0);
  await assert.rejects(openBle('Beacon-1', { load: fakeNoble('unsupported', never) }), (e: unknown) => {
    return e instanceof DeviceError && e.message === 'no usable Bluetooth adapter (state: unsupported)';
  });
  await assert.rejects(openBle('Beacon-1', { load: fakeNoble('poweredOff', never), adapterMs: 50 }), /^DeviceError: no usable Bluetooth adapter \(state: poweredOff\)$/);
});

test('BLE: without the optional BLE package, one clear line and exit 1', async (t) => {
  const missing = Object.assign(new Error("Cannot find module '@abandonware/noble'"), { code: 'MODULE_NOT_FOUND' });
  await assert.rejects(
    loadNoble(() => Promise.reject(missing)),
    (e: unknown) => e instanceof DeviceError && e.message === NOBLE_MISSING,
  );
  let installed = true;
  try {
    require.resolve('@abandonware/noble');
  } catch {
    installed = false;
  }
  if (installed) {
    t.skip('@abandonware/noble is installed here');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-smp-codec-'));
  try {
    const pkg = path.join(dir, 'app.bapp');
    fs.writeFileSync(pkg, Buffer.alloc(64));
    let out = '';
    let err = '';
    const io: CliIo = { out: (s) => (out += s), err: (s) => (err += s) };
    const code = await main(['upload', pkg, '--device', 'ble:Beacon-1'], io);
    assert.equal(code, 1);
    assert.equal(out, '');
    assert.equal(
      err,
      'beacon upload: BLE needs the optional package @abandonware/noble, which is not installed ' +
        '(npm install @abandonware/noble, on a machine with a Bluetooth adapter)\n',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('beacon upload: usage errors', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'beacon-smp-codec-'));
  try {
    const pkg = path.join(dir, 'app.bapp');
    fs.writeFileSync(pkg, Buffer.alloc(64));
    const run = async (argv: string[]): Promise<{ code: number; err: string }> => {
      let err = '';
      const code = await main(argv, { out: () => {}, err: (s) => (err += s) });
      return { code, err };
    };
    assert.deepEqual(await run(['upload', pkg]), {
      code: 2,
      err: "beacon upload: missing --device (udp:HOST[:PORT], serial:/dev/tty..., ble:NAME or bsim[:FLASH]) (see 'beacon upload --help')\n",
    });
    const bad = await run(['upload', pkg, '--device', 'usb:1']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^beacon upload: --device 'usb:1': expected udp:HOST/);
    const retries = await run(['upload', pkg, '--device', 'udp:127.0.0.1', '--retries', 'many']);
    assert.equal(retries.code, 2);
    assert.match(retries.err, /--retries must be a whole number/);
    // Not a package: refused before anything is sent.
    const notPkg = await run(['upload', pkg, '--device', 'udp:127.0.0.1:9']);
    assert.equal(notPkg.code, 1);
    assert.match(notPkg.err, /^beacon upload: .*app\.bapp: not an app package \(bad magic\)\n$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
