// examples/button-led.ts with DeviceScript: Button events and an LED. (No `this` inside arrow
// functions in DeviceScript: the blink timer calls the ring by name.)
import * as ds from "@devicescript/core"
import "@devicescript/runtime"

const PALETTE = [0xff0000, 0x00ff00, 0x0000ff, 0xffff00, 0xffffff]

type Mode = "off" | "steady" | "blink"

const led = new ds.Led()

class Ring {
    private colour = 0
    private mode: Mode = "off"
    private blinker: number | undefined
    private lit = false

    async next(): Promise<void> {
        this.colour = (this.colour + 1) % PALETTE.length
        if (this.mode === "off") this.mode = "steady"
        await this.show(true)
    }

    async toggleBlink(): Promise<void> {
        if (this.blinker !== undefined) {
            clearInterval(this.blinker)
            this.blinker = undefined
            this.mode = "steady"
            await this.show(true)
            return
        }
        this.mode = "blink"
        this.blinker = setInterval(async () => await ring.flip(), 700)
    }

    async flip(): Promise<void> {
        await this.show(!this.lit)
    }

    async off(): Promise<void> {
        if (this.blinker !== undefined) clearInterval(this.blinker)
        this.blinker = undefined
        this.mode = "off"
        await this.show(false)
    }

    describe(): string {
        return `${this.mode}, colour ${this.colour}`
    }

    private async show(on: boolean): Promise<void> {
        this.lit = on
        await led.showAll(on ? PALETTE[this.colour] : 0)
    }
}

function batteryColour(fraction: number): number {
    if (fraction > 0.6) return 0x00ff00
    if (fraction > 0.25) return 0xff6900
    return 0xff0000
}

const button = new ds.Button()
const side = new ds.Button("side")
const power = new ds.Power()
const ring = new Ring()
let presses = 0

button.down.subscribe(async () => {
    presses++
    await ring.next()
    console.log(`short press ${presses}: ${ring.describe()}`)
})

button.hold.subscribe(async held => {
    if (held >= 5000) {
        await ring.off()
        console.log("very long press: off")
    } else if (held >= 3000) {
        await ring.toggleBlink()
        console.log(`long press: ${ring.describe()}`)
    }
})

side.down.subscribe(async () => {
    const level = await power.batteryCharge.read()
    await led.showAll(batteryColour(level))
    setTimeout(async () => {
        if (ring.describe().indexOf("off") === 0) await led.showAll(0)
    }, 2000)
})

console.log(`ready: ${await led.numPixels.read()} LEDs`)
