// world: modem.world.json
// run: --for 10m
// modem queries answered from the scenario after their scan time in device time; a repeated
// call rejects the earlier promise; airplane mode rejects pending promises and queries made while
// it lasts; turned off, queries work again.
const t = () => `${app.getUptime() / 1000} s`;
const fail = (what: string) => (e: Error) => print(`${t()}: ${what} rejected: ${e.message}`);

modem.getInfo().then((i) => print(`${t()}: info iccid ${i.iccid} imei ${i.imei} imsi ${i.imsi}`), fail('getInfo'));
modem.getStatus().then((s) => print(`${t()}: status ${JSON.stringify(s)}`), fail('getStatus'));
modem.getCells().then((cells) => cells.forEach((c) => print(`${t()}: cell ${c.cell} ${c.tech} band ${c.band} signal ${c.signal} rsrp ${c.rsrp} rssi ${c.rssi}`)), fail('getCells'));
const first = modem.getOperators();
first.then(() => print('never: the repeated call rejects this one'), fail('first getOperators'));
timers.single(30000, () => {
  modem.getOperators().then((ops) => print(`${t()}: operators ${ops.map((o) => `${o.name}/${o.type}/${o.status}`).join(', ')}`), fail('second getOperators'));
});
// 3 min: a scan is pending when airplane mode goes on.
timers.single(180000, () => {
  modem.getOperators().then(() => print('never'), fail('getOperators'));
  modem.getCells().then(() => print('never'), fail('getCells'));
  timers.single(1000, () => {
    modem.setAirplaneMode(true);
    modem.getStatus().then(() => print('never'), fail('getStatus in airplane mode'));
    timers.single(60000, () => {
      modem.setAirplaneMode(false);
      modem.getStatus().then((s) => print(`${t()}: after airplane mode: ${s.name} signal ${s.signal}`), fail('getStatus'));
    });
  });
});
