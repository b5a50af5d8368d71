/*
 * fuzz_ble_parse: the advertising-data decoder and the beacon parser on hostile bytes, as a
 * scanner hands them over from the air. CTest runs it in every build; in build/sanitize it runs
 * under AddressSanitizer and UndefinedBehaviorSanitizer, so a read past the data is an error
 * even where it would not crash.
 *
 *   fuzz_ble_parse [--seed N] [--cases N] [--case I] [--verbose]
 *
 * Each case is one of: random bytes (0 to 300 of them); a packet of a random format from the
 * builders, mutated (bits flipped, bytes replaced, structure lengths rewritten, cut short,
 * extended, chunks repeated); random AD structures of the interesting types with plausible and
 * implausible lengths. Every case sits in a heap block of exactly its length.
 *
 * Beyond "no crash, no bad read", every case must hold:
 *  - the decoder's report is consistent (counts within the pools, values within the store);
 *  - what was decoded re-encodes (it is never bigger than what it came from), the re-encoded
 *    bytes decode cleanly to the same bytes again, and parse to the same type;
 *  - a recognised packet has a type name, and for iBeacon, AltBeacon, Eddystone-UID and -URL the
 *    builder given the parsed values makes a packet that parses to the same values.
 * A case is (seed, index): `--seed S --case I` replays what a failure names.
 *
 * Exit status: 0; 1 when a case broke a rule (one line each, at most 20); 2 for usage.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_ble_ad.h"
#include "rt_ble_beacon.h"

#define MAX_INPUT 300

static uint64_t rng_state;

static uint64_t next(void)
{
	/* splitmix64: small, fast, and a fixed seed gives the same cases everywhere. */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(next() % n) : 0;
}

static void fill(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		p[i] = (uint8_t)next();
	}
}

static double some_double(double lo, double hi)
{
	switch (below(16)) {
	case 0:
		return NAN;
	case 1:
		return INFINITY;
	case 2:
		return -INFINITY;
	case 3:
		return 1e300;
	default:
		return lo + (hi - lo) * (double)below(1u << 20) / (double)(1u << 20);
	}
}

static unsigned failures;
static unsigned long long current_case;
static uint64_t seed = 1;

#define CHECK(cond, ...)                                                                                         \
	do {                                                                                                     \
		if (!(cond)) {                                                                                   \
			if (failures++ < 20) {                                                                   \
				fprintf(stderr, "case %llu (--seed %llu --case %llu): ", current_case,           \
					(unsigned long long)seed, current_case);                                 \
				fprintf(stderr, __VA_ARGS__);                                                    \
				fputc('\n', stderr);                                                             \
			}                                                                                        \
			return;                                                                                  \
		}                                                                                                \
	} while (0)

/* ------------------------------------------------------------------------------- case makers */

static const char url_alphabet[] = "abcxyz09-_~/?#=&%.:";
static const char *const url_pieces[] = {".com/", ".org", ".info/", ".gov", ".COM", "www.", "/", "."};
static const char *const url_schemes[] = {"http://", "https://", "http://www.", "HTTPS://WWW.", "ftp://", ""};

/* A packet from a random builder with random inputs, as legacy AD bytes. */
static size_t built_packet(uint8_t *out)
{
	rt_ble_ad_t ad;
	uint8_t b[20];
	fill(b, sizeof(b));
	rt_ble_status_t st = RT_BLE_E_ARG;
	switch (below(10)) {
	case 0:
		st = rt_ble_beacon_ibeacon(&ad, b, 1 + below(16), (uint16_t)next(), (uint16_t)next(), (int8_t)next());
		break;
	case 1:
		st = rt_ble_beacon_eddystone_uid(&ad, b, b + 10, (int8_t)next());
		break;
	case 2: {
		char url[64];
		size_t n = (size_t)snprintf(url, sizeof(url), "%s", url_schemes[below(6)]);
		size_t want = n + below(24);
		while (n < want && n < 50) {
			if (below(4) == 0) {
				n += (size_t)snprintf(url + n, sizeof(url) - n, "%s", url_pieces[below(8)]);
			} else {
				url[n++] = url_alphabet[below(sizeof(url_alphabet) - 1)];
			}
		}
		if (n > 50) {
			n = 50;
		}
		st = rt_ble_beacon_eddystone_url(&ad, url, n, (int8_t)next());
		break;
	}
	case 3: {
		rt_ble_eddystone_tlm_t t = {some_double(0, 4000), some_double(-60, 90), (uint32_t)next(), next()};
		st = rt_ble_beacon_eddystone_tlm(&ad, &t);
		break;
	}
	case 4:
		st = rt_ble_beacon_altbeacon(&ad, b, 16 + below(5), (uint16_t)next(), (int8_t)next(),
					     (uint16_t)below(257));
		break;
	case 5:
		st = rt_ble_beacon_vendor_location(&ad, b, below(17), (int8_t)next());
		break;
	case 6:
		st = rt_ble_beacon_vendor_location_trigger(&ad, b, below(17), (int8_t)next());
		break;
	case 7: {
		rt_ble_vendor_telemetry_a_t t = {
			.accel_g = {some_double(-3, 3), some_double(-3, 3), some_double(-3, 3)},
			.moving = below(2),
			.previous_motion_s = (uint32_t)next(),
			.current_motion_s = below(100000),
			.gpio = (uint8_t)next(),
			.firmware_error = below(2),
			.clock_error = below(2),
			.pressure_pa = some_double(0, 120000),
		};
		memcpy(t.short_id, b, 8);
		st = rt_ble_beacon_vendor_telemetry_a(&ad, &t);
		break;
	}
	case 8: {
		rt_ble_vendor_telemetry_b_t t = {
			.magnetic = {some_double(-1.2, 1.2), some_double(-1, 1), some_double(-1, 1)},
			.light_lux = some_double(-5, 30000),
			.uptime_s = (uint32_t)next(),
			.temperature_c = some_double(-200, 200),
			.battery_mv = some_double(0, 20000),
			.battery_percent = some_double(-10, 110),
		};
		memcpy(t.short_id, b, 8);
		st = rt_ble_beacon_vendor_telemetry_b(&ad, &t);
		break;
	}
	default: {
		rt_ble_vendor_nearable_t t = {
			.temperature_c = some_double(-150, 150),
			.moving = below(2),
			.accel_mg = {some_double(-3000, 3000), some_double(-2000, 2000), some_double(-2000, 2000)},
			.current_motion_s = (uint32_t)next(),
			.previous_motion_s = below(1000),
		};
		memcpy(t.id, b, 8);
		st = rt_ble_beacon_vendor_nearable(&ad, &t);
		break;
	}
	}
	if (st != RT_BLE_OK) {
		/* URLs that cannot be a frame: use the bytes of an iBeacon instead. */
		(void)rt_ble_beacon_ibeacon(&ad, b, 16, 1, 1, -50);
	}
	size_t len = 0;
	(void)rt_ble_ad_encode(&ad, out, RT_BLE_AD_LEGACY_MAX, &len, NULL);
	return len;
}

/* Start offsets of the AD structures in p (as far as their lengths chain). */
static size_t structure_starts(const uint8_t *p, size_t len, size_t *starts, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < len && n < cap && p[i] != 0; i += (size_t)p[i] + 1) {
		starts[n++] = i;
	}
	return n;
}

static size_t mutate(uint8_t *p, size_t len)
{
	unsigned rounds = below(5);
	for (unsigned r = 0; r < rounds; r++) {
		size_t starts[64];
		size_t ns;
		switch (below(6)) {
		case 0:
			if (len) {
				p[below((uint32_t)len)] ^= (uint8_t)(1u << below(8));
			}
			break;
		case 1:
			if (len) {
				static const uint8_t edges[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff};
				p[below((uint32_t)len)] = below(2) ? (uint8_t)next() : edges[below(sizeof(edges))];
			}
			break;
		case 2: /* a structure's length byte */
			ns = structure_starts(p, len, starts, 64);
			if (ns) {
				size_t at = starts[below((uint32_t)ns)];
				p[at] = below(2) ? (uint8_t)(p[at] + (int)below(5) - 2) : (uint8_t)next();
			}
			break;
		case 3:
			len = below((uint32_t)len + 1);
			break;
		case 4: { /* extend with random bytes */
			size_t add = below(MAX_INPUT - (uint32_t)len + 1);
			fill(p + len, add);
			len += add;
			break;
		}
		default: /* repeat a chunk, as a packet with two of a structure */
			if (len) {
				size_t from = below((uint32_t)len), n = 1 + below((uint32_t)(len - from));
				if (len + n > MAX_INPUT) {
					n = MAX_INPUT - len;
				}
				memmove(p + len, p + from, n);
				len += n;
			}
			break;
		}
	}
	return len;
}

static const uint8_t interesting_types[] = {
	RT_BLE_AD_TYPE_FLAGS,		    RT_BLE_AD_TYPE_UUID16_INCOMPLETE,  RT_BLE_AD_TYPE_UUID16_COMPLETE,
	RT_BLE_AD_TYPE_UUID32_INCOMPLETE,   RT_BLE_AD_TYPE_UUID32_COMPLETE,    RT_BLE_AD_TYPE_UUID128_INCOMPLETE,
	RT_BLE_AD_TYPE_UUID128_COMPLETE,    RT_BLE_AD_TYPE_NAME_SHORT,	       RT_BLE_AD_TYPE_NAME_COMPLETE,
	RT_BLE_AD_TYPE_TX_POWER,	    RT_BLE_AD_TYPE_SERVICE_DATA16,     RT_BLE_AD_TYPE_SERVICE_DATA32,
	RT_BLE_AD_TYPE_SERVICE_DATA128,	    RT_BLE_AD_TYPE_MANUFACTURER,       0x19,
	0x00,
};

/* Random structures whose data often starts like a beacon's. */
static size_t random_structures(uint8_t *p)
{
	size_t len = 0;
	unsigned count = below(12);
	for (unsigned k = 0; k < count && len + 2 <= MAX_INPUT; k++) {
		uint8_t type = below(8) ? interesting_types[below(sizeof(interesting_types))] : (uint8_t)next();
		size_t n = below(4) ? below(32) : below(256);
		if (len + 2 + n > MAX_INPUT) {
			n = MAX_INPUT - len - 2;
		}
		p[len] = below(16) ? (uint8_t)(n + 1) : (uint8_t)next();
		p[len + 1] = type;
		fill(p + len + 2, n);
		if (n >= 4 && below(2)) {
			static const uint8_t heads[][4] = {{0x4c, 0x00, 0x02, 0x15}, {0xaa, 0xfe, 0x00, 0x00},
							  {0xaa, 0xfe, 0x10, 0x00}, {0xaa, 0xfe, 0x20, 0x00},
							  {0xaa, 0xfe, 0x20, 0x01}, {0xaa, 0xfe, 0x30, 0x00},
							  {0x9a, 0xfe, 0x22, 0x00}, {0x5d, 0x01, 0x01, 0x00},
							  {0x5d, 0x01, 0x02, 0x00}, {0x18, 0x01, 0xbe, 0xac}};
			memcpy(p + len + 2, heads[below(sizeof(heads) / sizeof(heads[0]))], 4);
		}
		len += 2 + n;
	}
	return len;
}

/* ------------------------------------------------------------------------------------ checks */

static void check_report(const rt_ble_ad_t *ad)
{
	CHECK(ad->used <= sizeof(ad->store), "store overrun: %u", ad->used);
	CHECK(ad->uuid_count <= RT_BLE_AD_MAX_UUIDS, "uuid_count %u", ad->uuid_count);
	CHECK(ad->service_data_count <= RT_BLE_AD_MAX_SERVICE_DATA, "service_data_count %u", ad->service_data_count);
	if (ad->present & RT_BLE_HAS_NAME) {
		CHECK(ad->name.off + ad->name.len <= ad->used, "name outside the store");
	}
	if (ad->present & RT_BLE_HAS_MANUF) {
		CHECK(ad->manuf.len >= 2 && ad->manuf.off + ad->manuf.len <= ad->used, "manufacturer data span");
	}
	for (size_t i = 0; i < ad->uuid_count; i++) {
		uint8_t l = ad->uuids[i].len;
		CHECK(l == 2 || l == 4 || l == 16, "uuid of %u bytes", l);
	}
	for (size_t i = 0; i < ad->service_data_count; i++) {
		const rt_ble_service_data_t *e = &ad->service_data[i];
		CHECK(e->data.off + e->data.len <= ad->used, "service data outside the store");
		CHECK(e->uuid.len == 2 || e->uuid.len == 4 || e->uuid.len == 16, "service data uuid");
	}
}

static void check_rebuild(const rt_ble_parsed_t *p)
{
	rt_ble_ad_t ad;
	rt_ble_parsed_t q;
	uint8_t air[RT_BLE_AD_LEGACY_MAX];
	size_t len = 0;
	rt_ble_status_t st;
	switch (p->type) {
	case RT_BLE_TYPE_IBEACON:
		st = rt_ble_beacon_ibeacon(&ad, p->ibeacon.uuid, 16, p->ibeacon.major, p->ibeacon.minor,
					   p->ibeacon.measured_power);
		break;
	case RT_BLE_TYPE_ALTBEACON:
		st = rt_ble_beacon_altbeacon(&ad, p->altbeacon.id, 20, p->altbeacon.manufacturer_id,
					     p->altbeacon.measured_power, p->altbeacon.reserved);
		break;
	case RT_BLE_TYPE_EDDYSTONE_UID:
		st = rt_ble_beacon_eddystone_uid(&ad, p->eddystone_uid.namespace_id, p->eddystone_uid.instance,
						 p->eddystone_uid.measured_power);
		break;
	case RT_BLE_TYPE_EDDYSTONE_URL:
		if (p->eddystone_url.url_len > RT_BLE_URL_TEXT_MAX) {
			return;
		}
		st = rt_ble_beacon_eddystone_url(&ad, p->eddystone_url.url, p->eddystone_url.url_len,
						 p->eddystone_url.measured_power);
		break;
	default:
		return;
	}
	CHECK(st == RT_BLE_OK, "%s: the builder refused the parsed values (%d)", rt_ble_beacon_type_name(p->type),
	      st);
	CHECK(rt_ble_ad_encode(&ad, air, sizeof(air), &len, NULL) == RT_BLE_OK, "rebuilt packet does not fit");
	rt_ble_ad_decode(air, len, &ad);
	CHECK(rt_ble_beacon_parse(&ad, &q) == p->type, "rebuilt %s parses as %d", rt_ble_beacon_type_name(p->type),
	      q.type);
	switch (p->type) {
	case RT_BLE_TYPE_EDDYSTONE_URL:
		CHECK(strcmp(q.eddystone_url.url, p->eddystone_url.url) == 0 &&
			      q.eddystone_url.measured_power == p->eddystone_url.measured_power,
		      "URL '%s' came back as '%s'", p->eddystone_url.url, q.eddystone_url.url);
		break;
	default:
		/* The other three have only integer fields and bytes: the whole union compares. */
		CHECK(memcmp(&q, p, sizeof(q)) == 0, "%s values changed through the builder",
		      rt_ble_beacon_type_name(p->type));
		break;
	}
}

static unsigned long long recognised[RT_BLE_TYPE_VENDOR_LOCATION_TRIGGER + 1];

static void run_case(const uint8_t *data, size_t len)
{
	/* Exactly len bytes on the heap, so the sanitizer sees a read past them. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		abort();
	}
	memcpy(exact, data, len);
	rt_ble_ad_t ad;
	rt_ble_parsed_t p;
	rt_ble_ad_decode(exact, len, &ad);
	rt_ble_beacon_type_t type = rt_ble_beacon_parse(&ad, &p);
	free(exact);

	check_report(&ad);
	recognised[type]++;
	CHECK(p.type == type, "parse returned %d but stored %d", type, p.type);
	CHECK((rt_ble_beacon_type_name(type) != NULL) == (type != RT_BLE_TYPE_NONE), "type name of %d", type);
	if (type == RT_BLE_TYPE_EDDYSTONE_URL) {
		CHECK(p.eddystone_url.url_len <= RT_BLE_URL_DECODED_MAX &&
			      strlen(p.eddystone_url.url) == p.eddystone_url.url_len,
		      "URL length %zu", p.eddystone_url.url_len);
	}

	/* What was decoded is at most what it came from, so it re-encodes; that encoding is clean
	 * and a fixed point, and means the same. */
	uint8_t enc1[RT_BLE_AD_EXT_MAX], enc2[RT_BLE_AD_EXT_MAX];
	size_t len1 = 0, len2 = 0;
	CHECK(rt_ble_ad_encode(&ad, enc1, sizeof(enc1), &len1, NULL) == RT_BLE_OK, "decoded packet does not re-encode");
	CHECK(len1 <= (len < RT_BLE_AD_EXT_MAX ? len : RT_BLE_AD_EXT_MAX), "re-encoded %zu bytes from %zu", len1, len);
	rt_ble_ad_t again;
	rt_ble_parsed_t p2;
	CHECK(rt_ble_ad_decode(enc1, len1, &again), "re-encoded bytes are not clean");
	CHECK(again.unknown == 0, "re-encoded bytes have unknown structures");
	CHECK(rt_ble_ad_encode(&again, enc2, sizeof(enc2), &len2, NULL) == RT_BLE_OK && len2 == len1 &&
		      memcmp(enc1, enc2, len1) == 0,
	      "encoding is not a fixed point");
	CHECK(rt_ble_beacon_parse(&again, &p2) == type, "re-encoded packet parses as %d, not %d", p2.type, type);

	check_rebuild(&p);
}

static int usage(void)
{
	fprintf(stderr, "usage: fuzz_ble_parse [--seed N] [--cases N] [--case I] [--verbose]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long long cases = 1000000, only = 0;
	bool one = false, verbose = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc) {
			cases = strtoull(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) {
			only = strtoull(argv[++i], NULL, 10);
			one = true;
		} else if (strcmp(argv[i], "--verbose") == 0) {
			verbose = true;
		} else {
			return usage();
		}
	}
	unsigned long long kinds[3] = {0};
	uint8_t buf[MAX_INPUT + RT_BLE_AD_EXT_MAX];
	for (unsigned long long i = one ? only : 0; i < (one ? only + 1 : cases); i++) {
		current_case = i;
		rng_state = seed * 0x2545f4914f6cdd1du ^ i * 0x9e3779b97f4a7c15u;
		size_t len;
		unsigned kind = below(8);
		if (kind < 2) {
			len = below(MAX_INPUT + 1);
			fill(buf, len);
			kinds[0]++;
		} else if (kind < 6) {
			len = mutate(buf, built_packet(buf));
			kinds[1]++;
		} else {
			len = random_structures(buf);
			kinds[2]++;
		}
		if (verbose) {
			printf("case %llu:", i);
			for (size_t k = 0; k < len; k++) {
				printf(" %02x", buf[k]);
			}
			printf("\n");
		}
		run_case(buf, len);
	}
	printf("fuzz_ble_parse: seed %llu, %llu cases (%llu random, %llu mutated packets, %llu random structures)\n",
	       (unsigned long long)seed, one ? 1ull : cases, kinds[0], kinds[1], kinds[2]);
	printf("recognised:");
	for (int t = 0; t <= RT_BLE_TYPE_VENDOR_LOCATION_TRIGGER; t++) {
		const char *name = rt_ble_beacon_type_name((rt_ble_beacon_type_t)t);
		printf(" %s %llu", name ? name : "none", recognised[t]);
	}
	printf("\n");
	if (failures) {
		fprintf(stderr, "fuzz_ble_parse: %u case(s) broke a rule\n", failures);
		return 1;
	}
	return 0;
}
