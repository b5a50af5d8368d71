// world: maker-uwb.world.json
// run: --api 0.1.5 --for 9s
// A UWB app of the shape people publish for the AI beacon (API 0.1.5): each device starts
// ranging with a distance callback, the responder too, and handles errors with
// uwb.start(...).catch(...), as the spec makes the callback optional and uwb.start return a
// promise. Both sides hear the distance (about 4 m) every 2 s, each naming the other; a bad
// role is a rejection that .catch sees, not an exception; uwb.stop() resolves the promise.
var responder = sys.getPublicId().slice(-1) === '1';
var heard = 0;
uwb.start(7, {}, function () {}).catch(function (e) {
  print('role 7 rejected: ' + e.code);
});
uwb.start(responder ? uwb.Role.RESPONDER : uwb.Role.INITIATOR, { panId: 42 }, function (m) {
  heard++;
  var other = m.id.slice(-1) === (responder ? '2' : '1');
  print('distance ' + m.dist.toFixed(1) + ' m to the ' + (other ? 'other device' : 'wrong device'));
}).then(function () {
  print('stopped after ' + heard + ' distances');
}).catch(function (e) {
  print('uwb error: ' + e.code + ' ' + e.message);
});
timers.single('7s', function () { uwb.stop(); });
