// run: --for 3s
// world: random.world.json
// Math.random comes from the world's seed, per device and per boot: a run repeats exactly (the
// apps test runs this twice and on both engines), but no two devices and no two boots share a
// sequence. Array.prototype.sort keeps equal elements in order, on both engines.
const draws: number[] = [];
for (let i = 0; i < 1000; i++) draws.push(Math.random());
const inRange = draws.every((x) => x >= 0 && x < 1);
const distinct = draws.filter((x, i) => draws.indexOf(x) === i).length;
const mean = draws.reduce((s, x) => s + x, 0) / draws.length;
print(`1000 draws in [0, 1): ${inRange}, distinct: ${distinct}, mean within 0.45..0.55: ${mean > 0.45 && mean < 0.55}`);
print(`first draws: ${draws.slice(0, 3).map((x) => x.toFixed(6)).join(' ')}`);
const tags = ['forklift', 'pallet-1', 'ib-00010001', 'pallet-2', 'phone'].map((id, i) => ({ id, rssi: -55 - (i % 2) }));
tags.sort((x, y) => y.rssi - x.rssi);
print(`nearest first, ties in the order heard: ${tags.map((t) => t.id).join(' ')}`);
timers.single(2500, () => print(`after ${app.getUptime()} ms: ${Math.random().toFixed(6)}`));
