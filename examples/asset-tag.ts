// An asset tag: an iBeacon of the company UUID that examples/asset-tracker.ts looks for. Every
// tag of examples/warehouse.world.json runs this one app, so each needs an identity of its own:
// the device's public id, whose last two bytes differ from device to device (the simulator
// numbers them; on hardware they are the tag's serial), becomes its iBeacon minor.

const ASSET_UUID = 'f7826da64fa24e988024bc5b71e0893e';
const WAREHOUSE = 1; // iBeacon major: the site

const id = sys.getPublicId();
// 1..65535: an iBeacon minor of 0 is not allowed, so a serial ending in 0000 takes 65535.
const minor = parseInt(id.slice(-4), 16) || 65535;

// A tag lives on a coin cell for years: one packet every 2 s, at low power (about 80 m to a
// tracker that takes -90 dBm).
ble.advertise(ble.build.iBeacon(ASSET_UUID, WAREHOUSE, minor)).interval('2s').power(-12);
