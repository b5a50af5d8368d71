// run: --api 0.0.9
// world: press-once.world.json
// io.press in 0.0.9: callback and press type only (the main button).
io.press(function () {
  print('short at ' + app.getUptime());
});
io.press(function () {
  print('long at ' + app.getUptime());
}, io.PressType.LONG);
