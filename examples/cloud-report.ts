// A temperature logger that reports to the cloud: a reading every 10 minutes, queued so that
// it survives power loss, a sync every hour, and the reporting interval taken from the cloud
// ('config' messages). `beacon run` starts a cloud for it; cloud-report.world.json sends it a
// message and takes its network away for a while.

let every = 10; // minutes between readings
let readings = 0;
const timer = timers.repeat(`${every} min`, read);

function read(): void {
  readings++;
  cloud.enqueue('temperature', { c: sensors.temp.get(), n: readings }, { volatile: false });
}

cloud.onReceive((msg) => {
  const minutes = (msg.payload as { every?: number } | null)?.every;
  if (msg.type === 'config' && typeof minutes === 'number' && minutes >= 1) {
    every = minutes;
    timer.stop();
    timer.restart(`${every} min`);
    print(`config: a reading every ${every} min`);
  }
});

sync.setEndHandler((error) => {
  print(error === undefined ? `synced after ${readings} readings` : `sync: ${error.message}`);
});
sync.setSyncPeriod('1 hour');
cloud.setVar('every', every);
read();
