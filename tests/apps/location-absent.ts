// world: location-absent.world.json
// The spec lets the location API be absent on hardware without GNSS: the BLE-only beacon has no
// `location` object at all; the tracker has one.
print(`${sys.getHardware()}: location is ${typeof location}${typeof location === 'object' ? `, distance ${typeof location.distance}` : ''}`);
