// examples/asset-tracker.ts with DeviceScript: the micro:bit radio stands in for the BLE scan
// (DeviceScript has none); sightings are kept and reported the same way. (No getters in
// DeviceScript classes, no `this` in arrow functions: written around both.)
import * as ds from "@devicescript/core"
import { publishMessage } from "@devicescript/cloud"

const REPORT_EVERY = 5 * 60 * 1000
const MIN_RSSI = -90

interface Sighting {
    id: string
    rssi: number
    seen: number
}

class AssetTable {
    private best: Record<string, Sighting> = {}
    private count = 0

    record(id: string, rssi: number): void {
        const prev = this.best[id]
        if (!prev) this.count++
        if (!prev || rssi > prev.rssi) this.best[id] = { id, rssi, seen: ds.millis() }
    }

    size(): number {
        return this.count
    }

    drain(): Sighting[] {
        const best = this.best
        const list = Object.keys(best).map(k => best[k])
        this.best = {}
        this.count = 0
        return list.sort((a, b) => b.rssi - a.rssi)
    }
}

/** The asset id a message carries, if it is one of ours. */
function assetId(message: string): string | undefined {
    if (message.indexOf("AT-") === 0) return message.slice(3)
    return undefined
}

const radio = new ds.BitRadio()
const power = new ds.Power()
const table = new AssetTable()
let rounds = 0

radio.report().subscribe(pkt => {
    if (pkt.spec.name !== "stringReceived") return
    const [, , rssi, , message] = pkt.decode() as [number, number, number, ds.Buffer, string]
    if (rssi < MIN_RSSI) return
    const id = assetId(message)
    if (id !== undefined) table.record(id, rssi)
})

setInterval(async () => {
    rounds++
    const seen = table.drain()
    const nearest = seen[0]
    await publishMessage("assets", {
        round: rounds,
        count: seen.length,
        nearest: nearest ? { id: nearest.id, rssi: nearest.rssi } : null,
        assets: seen.slice(0, 20).map(s => ({ id: s.id, rssi: s.rssi })),
        battery: await power.batteryCharge.read(),
    })
    console.log(`round ${rounds}: ${seen.length} assets`)
}, REPORT_EVERY)
