// The heartbeat of examples/timers.ts with DeviceScript's timers. (DeviceScript has no
// promise.then() and no `this` inside arrow functions: the same steps, written for it.)
import * as ds from "@devicescript/core"

class Heartbeat {
    private beats = 0
    timer = 0

    constructor(private readonly label: string) {}

    beat(): void {
        this.beats++
        console.log(`[${this.clock()}] ${this.label}: beat ${this.beats}`)
    }

    stop(): number {
        clearInterval(this.timer)
        return this.beats
    }

    clock(): string {
        const s = Math.floor(ds.millis() / 1000)
        const pad = (n: number, width = 2) => `0000${n}`.slice(-width)
        return `${pad(Math.floor(s / 60))}:${pad(s % 60)}`
    }
}

const heart = new Heartbeat("status")
heart.timer = setInterval(() => heart.beat(), 5000)

async function countdown(from: number): Promise<void> {
    for (let left = from; left > 0; left--) {
        console.log(`[${heart.clock()}] launch in ${left}...`)
        await ds.sleep(1000)
    }
}

await countdown(3)
console.log(`[${heart.clock()}] lift-off`)
await ds.sleep(12000)
const beats = heart.stop()
console.log(`[${heart.clock()}] done after ${beats} beats; stopping`)
