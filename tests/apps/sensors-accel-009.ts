// run: --api 0.0.9
// world: sensors-accel-009.world.json
// 0.0.9 names the accelerometer sensors.accel (get, setSens, setResp, onMotion).
sensors.accel.setSens(4);
sensors.accel.setResp(4);
sensors.accel.onMotion(function (moving) {
  var a = sensors.accel.get();
  print(app.getUptime() + ' ms: ' + (moving ? 'moving' : 'still') + ', accel ' + a.x + ' ' + a.y + ' ' + a.z);
});
