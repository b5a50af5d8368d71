// run: --api 0.1.5
// world: ai-beacon.world.json
// io in 0.1.5: ids 0 to 2 are the ring's three segments (four LEDs each on a 12-LED ring), the
// io.Led values 100 to 102 are side LED groups, and an id past them is refused.
io.led(1, true);
io.setLedColor(1, 'lime');
io.setLedBrightness(1, 0.5);
io.led(io.Led.BLE, true);
try {
  io.led(7, true);
} catch (e) {
  print(`${(e as Error).name}: ${(e as Error).message}`);
}
io.led(false);
print('done');
