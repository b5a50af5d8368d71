// run: --for 2h --cloud none
// Without a network every sync fails: the end handler gets the error, the start and end
// handlers run again at each retry (after 1, 2, 4, 8 and 16 minutes), then the device waits for
// the next period; the queued events stay queued.
sync.setHandler(() => print(`start at ${sys.getUptime()} s`));
sync.setEndHandler((error) => print(`end: ${error === undefined ? 'ok' : error.message}`));
cloud.enqueue('kept', { a: 1 }, { volatile: false });
sync.setSyncPeriod('1h');
sync.now();
