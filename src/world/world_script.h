/*
 * world_script.h: the world script, the form a scenario takes for the C world.
 *
 * Users write scenarios as JSON (docs/world.md, checked against docs/world.schema.json by the
 * `beacon` tools, which then lower them to this script). The script is plain lines, so that
 * every front end (the host simulator, the WebAssembly build, the emulated device) reads it with
 * a few lines of C and no JSON parser:
 *
 *   beacon-world 1
 *   utc 1767225600000 | utc none
 *   device <index> <name> <profile> [key=value]...
 *   seed <n>
 *   beacon <name> <lat>,<long>,<alt> <interval ms> <power dBm> <AD hex> [addr=<hex>] [response=0|1] [connectable=0|1]
 *   at <ms> <device index> <input> <arguments>...
 *   gnss <index> point|outage|sky|receiver ...   (world_script.c: gnss_line)
 *   modem <index> operator|operators|status|cell|cells|sim|scan ...   (modem_line; text %-encoded)
 *   uwb interval <ms> | uwb seed <n>
 *
 * Device keys: heap, imu (0/1), synced (0/1), battery (%), external, charging (0/1), current
 * (mA), temperature (C), accel (x,y,z), position (lat,long,alt in degrees and metres), start (ms:
 * the world time the device is switched on; off until then). Inputs: button main|side down|up; motion 0|1 <g>;
 * accel <x> <y> <z>; gyro <x> <y> <z>; imu-event <name> [<axis> <sign> <value> <g>];
 * battery <%>; current <mA>; power <external 0|1> <charging 0|1>; temperature <C>;
 * time-sync 0|1; imu-fault 0|1; fault hang|crash; move <lat> <long> <alt>; power-cut <n>;
 * storage-fault error|timeout; nfc-field 0|1; nfc-write <NDEF message in hex, - for none>;
 * ble-capture <AD hex> <rssi> <channel> [addr=<hex>] [response=0|1] [connectable=0|1];
 * cloud-network 0|1; cloud-message <type> <JSON>; cloud-deploy <K> (the K-th package the world was
 * given to deploy, world_cloud_deploy.h). Lines starting with # are comments.
 */
#ifndef WORLD_SCRIPT_H
#define WORLD_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "world.h"

/* Number of devices a script declares (0 for a script with none, or a malformed one: loading
 * then says what is wrong). */
uint32_t world_script_device_count(const char *text, size_t len);
/* A whole decimal number, all of s, no sign (the script's numbers; the world runners' options
 * take the same). False when s is not one or does not fit 64 bits. */
bool world_script_parse_u64(const char *s, uint64_t *out);
/* Apply a script to a world made with world_script_device_count() devices. Returns 0, or -1 with
 * "line N: reason" in err. */
int world_script_load(world_t *world, const char *text, size_t len, char *err, size_t err_cap);
/* Apply one device of a script to a world of one device: device `play` of the scenario becomes
 * device 0 with the scenario's identity for it (its address, public id and random numbers), the
 * other devices' statements and inputs are left out, and what the whole world shares (utc, seed,
 * scripted beacons, UWB) is kept. What a firmware playing one device of a scenario among other
 * firmwares loads. Returns 0, or -1 with "line N: reason" in err. */
int world_script_load_device(world_t *world, const char *text, size_t len, uint32_t play,
			     char *err, size_t err_cap);

#endif /* WORLD_SCRIPT_H */
