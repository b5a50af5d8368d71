// world: two-devices.world.json
// One app on two devices of different hardware: each runs its own copy (own engine, own state),
// output lines carry the device's name, and time is one for the world.
let presses = 0;
print(`${sys.getHardware()} with ${io.getMaxLeds()} LEDs, id ${sys.getPublicId().slice(-4)}`);
io.press(() => {
  presses++;
  print(`pressed at ${app.getUptime()} ms (${presses} here)`);
  io.led(0, true);
});
