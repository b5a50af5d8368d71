// run: --api 0.2.6 --for 3s
// world: ble-scan-record-shape.world.json
// The scan record as an app sees it, on every engine (apps.test.ts compares each engine's output
// with this one file): its own keys in order, each value (ArrayBuffers in hex) and each
// property's attributes, for a packet with every optional field, its scan response and a packet
// with none. And promise jobs a callback queues run before the next callback starts.
const hex = (b: ArrayBuffer) => toHex(b);

function show(v: unknown): string {
  if (v instanceof ArrayBuffer) return `buf(${hex(v)})`;
  if (Array.isArray(v)) return `[${v.map(show).join(' ')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as { [k: string]: unknown };
    return `{${Object.keys(o).map((k) => `${k}:${show(o[k])}`).join(' ')}}`;
  }
  return `${typeof v}:${String(v)}`;
}

function attributes(r: object): string {
  const out: string[] = [];
  for (const k of Object.getOwnPropertyNames(r)) {
    const d = Object.getOwnPropertyDescriptor(r, k);
    if (d) out.push(`${d.enumerable ? 'e' : '-'}${d.writable ? 'w' : '-'}${d.configurable ? 'c' : '-'}`);
  }
  return out.join(' ');
}

const shown: { [kind: string]: boolean } = {};
const order: string[] = [];
let calls = 0;

ble.startScan((r: ScanRecord) => {
  calls++;
  const n = calls;
  if (n <= 4) {
    order.push(`callback ${n}`);
    Promise.resolve().then(() => order.push(`job of ${n}`)).then(() => order.push(`second job of ${n}`));
  }
  const kind = `${hex(r.addr)} ${r.scanResponse ? 'response' : 'adv'}`;
  if (shown[kind]) return;
  shown[kind] = true;
  print(`${kind}: keys ${Object.keys(r).join(',')}`);
  print(`${kind}: ${show(r)}`);
  print(`${kind}: attributes ${attributes(r)}; prototype is Object.prototype ${Object.getPrototypeOf(r) === Object.prototype}`);
}, 2500).then(() => {
  print(`order: ${order.join(', ')}`);
  print(`kinds: ${Object.keys(shown).sort().join('; ')}`);
});
