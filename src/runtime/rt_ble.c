/*
 * ble: advertising, scanning, and the beacon packet builders and parser.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

/* Handles of ble.advertise; the engine checks this type before any method runs. */
const eng_native_type_t rt_advertiser_native_type = {"advertiser", NULL};

eng_value_t rt_ble_advertise(const rt_ble_advertise_args_t *args)
{
	return rt_not_implemented("ble.advertise");
}

eng_value_t rt_ble_startScan(const rt_ble_startScan_args_t *args)
{
	return rt_not_implemented("ble.startScan");
}

eng_value_t rt_ble_parse(const rt_ble_parse_args_t *args)
{
	return rt_not_implemented("ble.parse");
}

eng_value_t rt_ble_stopScan(const rt_ble_stopScan_args_t *args)
{
	return rt_not_implemented("ble.stopScan");
}

eng_value_t rt_ble_build_eddystoneUrl(const rt_ble_build_eddystoneUrl_args_t *args)
{
	return rt_not_implemented("ble.build.eddystoneUrl");
}

eng_value_t rt_ble_build_eddystoneTlm(void)
{
	return rt_not_implemented("ble.build.eddystoneTlm");
}

eng_value_t rt_ble_build_eddystoneUid(const rt_ble_build_eddystoneUid_args_t *args)
{
	return rt_not_implemented("ble.build.eddystoneUid");
}

eng_value_t rt_ble_build_iBeacon(const rt_ble_build_iBeacon_args_t *args)
{
	return rt_not_implemented("ble.build.iBeacon");
}

eng_value_t rt_ble_build_altBeacon(const rt_ble_build_altBeacon_args_t *args)
{
	return rt_not_implemented("ble.build.altBeacon");
}

eng_value_t rt_ble_build_vendorLocation(const rt_ble_build_vendorLocation_args_t *args)
{
	return rt_not_implemented("ble.build.vendorLocation");
}

eng_value_t rt_ble_build_vendorLocationTrigger(const rt_ble_build_vendorLocationTrigger_args_t *args)
{
	return rt_not_implemented("ble.build.vendorLocationTrigger");
}

eng_value_t rt_ble_build_vendorTelemetry(void)
{
	return rt_not_implemented("ble.build.vendorTelemetry");
}

eng_value_t rt_ble_build_vendorNearable(void)
{
	return rt_not_implemented("ble.build.vendorNearable");
}

eng_value_t rt_advertiser_stop(struct rt_advertiser *self, eng_value_t this_value)
{
	return rt_not_implemented("Advertiser.stop");
}

eng_value_t rt_advertiser_pause(struct rt_advertiser *self, eng_value_t this_value)
{
	return rt_not_implemented("Advertiser.pause");
}

eng_value_t rt_advertiser_resume(struct rt_advertiser *self, eng_value_t this_value)
{
	return rt_not_implemented("Advertiser.resume");
}

eng_value_t rt_advertiser_interval(struct rt_advertiser *self, eng_value_t this_value, const rt_advertiser_interval_args_t *args)
{
	return rt_not_implemented("Advertiser.interval");
}

eng_value_t rt_advertiser_power(struct rt_advertiser *self, eng_value_t this_value, const rt_advertiser_power_args_t *args)
{
	return rt_not_implemented("Advertiser.power");
}
