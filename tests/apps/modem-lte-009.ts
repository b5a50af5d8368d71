// run: --api 0.0.9 --for 2m
// 0.0.9 names the modem `lte` and has no getCells; its status has no rssi, rsrp, rsrq (0.1.5 on)
// and its errors no codes.
// @ts-ignore: modem is not declared in 0.0.9, which is what this checks
print(`modem: ${typeof modem}, lte: ${typeof lte}, lte.getCells: ${typeof (lte as any).getCells}`);
lte.getStatus().then((s) => print(`status: ${JSON.stringify(s)}`));
lte.getInfo().then((i) => print(`imei ${i.imei}`));
timers.single(1000, () => {
  lte.getOperators().then(() => print('never'), (e: Error) => print(`rejected: ${e.message}`));
  lte.setAirplaneMode(true);
  lte.getInfo().then(() => print('never'), (e: Error) => print(`in airplane mode: ${e.message}`));
  lte.setAirplaneMode(false);
  lte.getInfo().then((i) => print(`after airplane mode: imsi ${i.imsi}`));
});
