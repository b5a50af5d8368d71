// A door sensor: LED 0 shows the button while it is held; each short press is counted in storage
// (record 1) and leaves LED 0 lit white. The test beside it is docs/testing.md's worked example.
print('boot');
let presses = (storage.read(1) as number | undefined) ?? 0;
io.onRawPress((down) => io.led(0, down));
io.press(() => {
  presses++;
  storage.save(1, presses);
  io.setLedColor(0, [1, 1, 1]);
  io.led(0, true);
  print('press ' + presses);
}, io.PressType.SHORT);
