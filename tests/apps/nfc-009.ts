// world: nfc-009.world.json
// run: --api 0.0.9 --for 10s
// nfc.setMsg encodes real NDEF bytes (the trace's nfc-msg records hold them): the NFC Forum URI
// RTD examples (http://www.nfc.com -> D1 01 08 55 01 6E 66 63 2E 63 6F 6D; tel:+35891234567
// with code 0x05), a Text record of "Hello, world!" and an external record; the four uncoded
// errors; field events; the tag writable only while onWrite is registered; setMsg(null)
// restores the initial message.
const hex = (b: ArrayBuffer) => {
  const u = new Uint8Array(b);
  let s = '';
  for (let i = 0; i < u.length; i++) s += (u[i] < 16 ? '0' : '') + u[i].toString(16);
  return s;
};
const t = () => `${app.getUptime()} ms`;
nfc.onFieldChanged((field) => print(`${t()}: field ${field}`));
nfc.setMsg([{ recordType: nfc.RecordType.URI, uri: 'http://www.nfc.com' }]);
nfc.setMsg([{ recordType: nfc.RecordType.URI, uri: 'tel:+35891234567' }]);
nfc.setMsg([{ recordType: nfc.RecordType.TEXT, text: 'Hello, world!' }]);
nfc.setMsg([
  { recordType: nfc.RecordType.TEXT, text: 'Hello, world!' },
  { recordType: nfc.RecordType.URI, uri: 'https://example.com/b' },
  { recordType: nfc.RecordType.EXTERNAL, type: 'example.com:beacon', data: '0102ff' },
]);
const attempt = (what: string, msg: any) => {
  try {
    nfc.setMsg(msg);
    print(`${what}: accepted`);
  } catch (e) {
    print(`${what}: ${(e as Error).message}`);
  }
};
attempt('record type 4', [{ recordType: 4, text: 'x' }]);
attempt('URI without uri', [{ recordType: nfc.RecordType.URI, text: 'x' }]);
attempt('odd hex data', [{ recordType: nfc.RecordType.EXTERNAL, type: 'example.com:b', data: '123' }]);
attempt('empty list', []);
let big = '';
for (let i = 0; i < 870; i++) big += 'x';
attempt('870 characters of text', [{ recordType: nfc.RecordType.TEXT, text: big }]);
// The write at 2 s comes while the tag is read-only: refused, no callback.
timers.single(3000, () => {
  nfc.onWrite((data) => {
    print(`${t()}: written ${hex(data)}`);
    nfc.onWrite(null); // read-only again: the write at 6 s is refused
  });
});
timers.single(8000, () => nfc.setMsg(null));
