// world: app-lifecycle.world.json
// The app lifecycle of the States table: app.stop() stops the app, a long press of the side
// button starts it again (a short one does not); app.restart() starts it from the top with its
// uptime from 0 while the device's uptime goes on; after app.remove() nothing brings it back.
// Each start runs this top level again: the phase comes from how long the device has been up.
const up = sys.getUptime();
print(`top level: device up ${up} s, app up ${app.getUptime()} ms`);
if (up < 5) {
  timers.single('2s', () => {
    print('stopping');
    app.stop();
    print('not reached after stop? it is: stop ends the app once this callback returns');
  });
} else if (up < 9) {
  timers.single('1s', () => {
    print(`restarting after ${app.getUptime()} ms`);
    app.restart();
  });
} else {
  timers.single('1500ms', () => {
    print('removing');
    app.remove();
  });
}
