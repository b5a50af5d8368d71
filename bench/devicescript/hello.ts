import * as ds from "@devicescript/core"

const id = ds.deviceIdentifier("self")
console.log(`Hello from ${ds.isSimulator() ? "simulator" : "device"} ${id.slice(0, 8)}`)
