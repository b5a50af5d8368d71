/*
 * rt_features.h: which parts of the API the device's hardware has.
 *
 * The spec lets the location API be absent on hardware without GNSS: the glue asks here, when it
 * installs an app's API, whether to make each namespace, so an app on a BLE-only beacon finds no
 * `location` object (typeof location === 'undefined') instead of one whose calls all fail. Other
 * namespaces stay on every hardware and say at call time what the hardware lacks (a modem query
 * without a modem, uwb.start without a UWB radio: the promise is rejected with ESR0003), as the
 * spec has them in every version that lists them.
 */
#ifndef RT_FEATURES_H
#define RT_FEATURES_H

#include <stdbool.h>

/* Whether the top-level namespace `name` ("location", "ble", ...) exists on this device. */
bool rt_features_namespace_present(const char *name);

#endif /* RT_FEATURES_H */
