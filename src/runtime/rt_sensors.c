/*
 * sensors: motion (IMU; sensors.accel in 0.0.9), battery and temperature.
 *
 * The generated glue has checked and converted every argument before these run. Behaviour not
 * built yet throws ESR0003 naming the function (docs/api.md lists it as "not yet").
 */
#include "api_types.h"
#include "rt_errors.h"

eng_value_t rt_sensors_imu_getAccel(void)
{
	return rt_not_implemented("sensors.imu.getAccel");
}

eng_value_t rt_sensors_imu_getGyro(void)
{
	return rt_not_implemented("sensors.imu.getGyro");
}

eng_value_t rt_sensors_imu_getOrient(void)
{
	return rt_not_implemented("sensors.imu.getOrient");
}

eng_value_t rt_sensors_imu_setSens(const rt_sensors_imu_setSens_args_t *args)
{
	return rt_not_implemented("sensors.imu.setSens");
}

eng_value_t rt_sensors_imu_setResp(const rt_sensors_imu_setResp_args_t *args)
{
	return rt_not_implemented("sensors.imu.setResp");
}

eng_value_t rt_sensors_imu_setRange(const rt_sensors_imu_setRange_args_t *args)
{
	return rt_not_implemented("sensors.imu.setRange");
}

eng_value_t rt_sensors_imu_onMotion(const rt_sensors_imu_onMotion_args_t *args)
{
	return rt_not_implemented("sensors.imu.onMotion");
}

eng_value_t rt_sensors_battery_getVoltage(void)
{
	return rt_not_implemented("sensors.battery.getVoltage");
}

eng_value_t rt_sensors_battery_isExtPower(void)
{
	return rt_not_implemented("sensors.battery.isExtPower");
}

eng_value_t rt_sensors_battery_isCharging(void)
{
	return rt_not_implemented("sensors.battery.isCharging");
}

eng_value_t rt_sensors_battery_getPerc(void)
{
	return rt_not_implemented("sensors.battery.getPerc");
}

eng_value_t rt_sensors_battery_getCapacity(void)
{
	return rt_not_implemented("sensors.battery.getCapacity");
}

eng_value_t rt_sensors_battery_getAvgCurrent(void)
{
	return rt_not_implemented("sensors.battery.getAvgCurrent");
}

eng_value_t rt_sensors_battery_setPowerListener(const rt_sensors_battery_setPowerListener_args_t *args)
{
	return rt_not_implemented("sensors.battery.setPowerListener");
}

eng_value_t rt_sensors_temp_get(void)
{
	return rt_not_implemented("sensors.temp.get");
}

eng_value_t rt_sensors_temp_setFastMode(const rt_sensors_temp_setFastMode_args_t *args)
{
	return rt_not_implemented("sensors.temp.setFastMode");
}
