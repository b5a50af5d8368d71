// examples/telemetry.ts with DeviceScript: no BLE advertising there, so the micro:bit radio
// broadcasts the same values on a timer.
import * as ds from "@devicescript/core"

const MAJOR = 7

interface Plan {
    interval: number
    power: number
}

const NORMAL: Plan = { interval: 1000, power: 7 }
const SAVING: Plan = { interval: 5000, power: 3 }

const radio = new ds.BitRadio()
const power = new ds.Power()
let plan: Plan | undefined
let timer: number | undefined
let urlEvery = 0

async function level(): Promise<number> {
    const charge = await power.batteryCharge.read()
    return Math.max(1, Math.min(100, Math.round(charge * 100)))
}

async function broadcast(): Promise<void> {
    await radio.sendValue(await level(), "bat")
    await radio.sendNumber(MAJOR)
    if (++urlEvery % 10 === 0) await radio.sendString("https://example.com/t")
}

async function apply(next: Plan): Promise<void> {
    if (plan === next) return
    plan = next
    await radio.transmissionPower.write(next.power)
    if (timer !== undefined) clearInterval(timer)
    timer = setInterval(broadcast, next.interval)
    console.log(`broadcasting every ${next.interval} ms at power ${next.power}`)
}

async function review(): Promise<void> {
    const low = (await level()) < 20 && (await power.powerStatus.read()) !== ds.PowerPowerStatus.Powering
    await apply(low ? SAVING : NORMAL)
}

await review()
setInterval(review, 3600 * 1000)
