// run: --for 10s
// stderr: uncaught exception in a callback: Error: nobody catches this
// With no error handler, an exception in a callback is reported on stderr and the app goes on.
timers.single(100, () => {
  throw new Error('nobody catches this');
});
timers.single(200, () => print('still running'));
