/*
 * Benchmark driver for the location, NFC and UWB modules: runs one operation n times so that
 * callgrind's instruction count, less the same run in "loop" mode (the same setup and loop with
 * no operation), divided by n, is the cost of one operation. bench/geo.sh runs it.
 *
 *   beacon-bench-geo MODE N
 *
 * Inputs are fixed pseudo-random tables built in every mode alike, so the baseline takes out
 * their cost; the results go to a volatile sink so that nothing is optimised away.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_geo.h"
#include "rt_gnss_track.h"
#include "rt_location_filter.h"
#include "rt_ndef.h"
#include "rt_uwb_model.h"

#define TABLE 1024

static volatile double sink;

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

typedef struct {
	double lat1, lon1, lat2, lon2;
} line_t;

static line_t short_lines[TABLE], global_lines[TABLE], antipodal_lines[TABLE];
static rt_gnss_point_t track_points[100];
static rt_gnss_outage_t outages[5];

static void setup(void)
{
	for (int i = 0; i < TABLE; i++) {
		double lat = asin(2 * uniform() - 1) * 180 / 3.14159265358979323846;
		double lon = 360 * uniform() - 180;
		line_t *s = &short_lines[i];
		s->lat1 = lat;
		s->lon1 = lon;
		/* Up to 10 km, the distances a tracker compares. */
		s->lat2 = lat + (uniform() - 0.5) * 0.18;
		s->lat2 = fmax(-90, fmin(90, s->lat2));
		s->lon2 = lon + (uniform() - 0.5) * 0.18;
		global_lines[i] = (line_t){lat, lon, asin(2 * uniform() - 1) * 180 / 3.14159265358979323846,
					   360 * uniform() - 180};
		antipodal_lines[i] = (line_t){lat, lon, fmax(-90, fmin(90, -lat + (uniform() - 0.5))),
					      lon + 180 + (uniform() - 0.5)};
	}
	/* A 100-point walk, a point every 10 s, with five outages. */
	double lat = 47.0, lon = 8.0;
	for (int i = 0; i < 100; i++) {
		track_points[i] = (rt_gnss_point_t){(int64_t)i * 10000, lat, lon, 400, NAN, NAN};
		rt_geo_destination(lat, lon, 360 * uniform(), 15 * uniform(), &lat, &lon, NULL);
	}
	for (int i = 0; i < 5; i++) {
		outages[i] = (rt_gnss_outage_t){(int64_t)i * 200000 + 50000, (int64_t)i * 200000 + 80000};
	}
}

static const char *const modes[] = {"loop",    "distance_short", "distance_global",
				    "distance_antipodal", "haversine", "destination",
				    "filter_step", "gnss_fix", "ndef_encode", "ndef_decode",
				    "uwb_measure"};

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s MODE N\n", argv[0]);
		return 2;
	}
	int mode = -1;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		if (strcmp(argv[1], modes[m]) == 0) {
			mode = (int)m;
		}
	}
	long n = atol(argv[2]);
	if (mode < 0 || n <= 0) {
		fprintf(stderr, "unknown mode %s or count %s\n", argv[1], argv[2]);
		return 2;
	}
	setup();

	/* The filter: a session with minDistance, so each step computes a distance. */
	rt_location_filter_t filter;
	rt_location_filter_init(&filter, NULL);
	rt_location_options_t opt;
	rt_location_options_default(&opt, true);
	opt.timeout_ms = 0;
	opt.min_distance_m = 10;
	rt_location_out_t out;
	rt_location_filter_start(&filter, &opt, 0, &out);

	rt_gnss_track_t track;
	rt_gnss_track_init(&track, track_points, 100);
	track.outages = outages;
	track.n_outages = 5;
	track.noise_m = 2.0;

	/* A 3-record message: TEXT, URI, EXTERNAL with 16 bytes. */
	rt_ndef_record_in_t recs[3] = {
		{.record_type = RT_NDEF_RECORD_TEXT, .text = {"Beacon 42 here", 14}},
		{.record_type = RT_NDEF_RECORD_URI, .uri = {"https://example.com/b/42", 24}},
		{.record_type = RT_NDEF_RECORD_EXTERNAL, .type = {"example.com:beacon", 18},
		 .data = {"00112233445566778899aabbccddeeff", 32}},
	};
	uint8_t msg[RT_NDEF_MAX_MESSAGE];
	size_t msg_len;
	rt_ndef_encode(recs, 3, msg, sizeof(msg), &msg_len, NULL);

	rt_uwb_model_t uwb;
	rt_uwb_model_init(&uwb, 1);
	rt_uwb_config_t ini, res;
	rt_uwb_validate(RT_UWB_ROLE_INITIATOR, NULL, true, &ini, NULL);
	rt_uwb_validate(RT_UWB_ROLE_RESPONDER, NULL, false, &res, NULL);

	double acc = 0;
	for (long i = 0; i < n; i++) {
		const line_t *s = &short_lines[i % TABLE];
		switch (mode) {
		case 0:
			acc += s->lat1;
			break;
		case 1:
			acc += rt_geo_distance(s->lat1, s->lon1, s->lat2, s->lon2);
			break;
		case 2: {
			const line_t *g = &global_lines[i % TABLE];
			acc += rt_geo_distance(g->lat1, g->lon1, g->lat2, g->lon2);
			break;
		}
		case 3: {
			const line_t *a = &antipodal_lines[i % TABLE];
			acc += rt_geo_distance(a->lat1, a->lon1, a->lat2, a->lon2);
			break;
		}
		case 4:
			acc += rt_geo_haversine(s->lat1, s->lon1, s->lat2, s->lon2);
			break;
		case 5: {
			double la, lo;
			rt_geo_destination(s->lat1, s->lon1, s->lat2 * 2 + 180, 5000, &la, &lo, NULL);
			acc += la;
			break;
		}
		case 6: {
			/* A fix a second, wandering around the table's short lines. */
			rt_location_position_t p = {.lat = s->lat1, .lon = s->lon1, .prec = 1, .sat = 8};
			rt_location_filter_fix(&filter, (int64_t)i * 1000, &p, &out);
			acc += out.deliver;
			break;
		}
		case 7: {
			rt_gnss_fix_t f;
			rt_gnss_track_fix(&track, 0, RT_GNSS_NEVER, (int64_t)(i % 1000) * 1000, &f);
			acc += f.lat;
			break;
		}
		case 8:
			rt_ndef_encode(recs, 3, msg, sizeof(msg), &msg_len, NULL);
			acc += msg[i % msg_len];
			break;
		case 9: {
			rt_ndef_record_t dec[3];
			size_t count;
			rt_ndef_decode(msg, msg_len, dec, 3, &count, NULL);
			acc += dec[2].payload_len;
			break;
		}
		case 10: {
			rt_uwb_position_t a = {s->lat1, s->lon1, 0}, b = {s->lat1 + 0.0001, s->lon1, 1};
			rt_uwb_measurement_t m;
			rt_uwb_measure(&uwb, &ini, &res, &a, &b, 1, i, &m);
			acc += m.dist_m;
			break;
		}
		}
	}
	sink = acc;
	return 0;
}
