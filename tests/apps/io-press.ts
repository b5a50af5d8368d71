// world: io-press.world.json
// io.press classifies a press by how long the button was down: SHORT under 1 s, LONG over 3 s,
// VERY_LONG over 5 s (a 2 s press is none of them); one callback per button and press type, a
// second registration replaces the first, null unregisters; onRawPress sees every edge.
const t = () => `${(app.getUptime() / 1000).toFixed(2)}s`;
io.press(() => print(`${t()} SHORT (first registration)`), io.PressType.SHORT);
io.press(() => print(`${t()} SHORT`), io.PressType.SHORT);
io.press(() => print(`${t()} LONG`), io.PressType.LONG);
io.press(() => print(`${t()} VERY_LONG`), io.PressType.VERY_LONG);
io.press(io.Button.SIDE, () => print(`${t()} side SHORT`), io.PressType.SHORT);
timers.single('23s', () => {
  io.press(null, io.PressType.SHORT);
  print(`${t()} SHORT unregistered`);
});
timers.single('25s', () => {
  io.onRawPress((down) => print(`${t()} raw ${down ? 'down' : 'up'}`));
});
