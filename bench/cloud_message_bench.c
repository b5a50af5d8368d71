/*
 * Instructions to hand a cloud message's payload to the app (bench/cloud_device.sh runs it under
 * callgrind): a 200-byte object as CBOR made into the app's value, N times, either straight from
 * the CBOR (rt_cloud_payload_value, what the device does) or through its JSON text and
 * JSON.parse (what it did before, with a 24 kB text buffer).
 *
 *   cloud-message-bench direct|json N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "rt_cbor.h"
#include "rt_cloud.h"
#include "rt_cloud_json.h"
#include "rt_cloud_proto.h"

static const char payload_json[] =
	"{\"id\":\"sensor-0001\",\"t\":21.5,\"samples\":[1,2,3,4,5,6,7,8],\"note\":\""
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}";

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "direct") != 0 && strcmp(argv[1], "json") != 0)) {
		fprintf(stderr, "usage: cloud-message-bench direct|json N\n");
		return 2;
	}
	bool direct = strcmp(argv[1], "direct") == 0;
	long n = strtol(argv[2], NULL, 10);
	static uint8_t cbor[RT_CLOUD_PAYLOAD_MAX];
	rt_cbor_enc_t e;
	rt_cbor_enc_init(&e, cbor, sizeof(cbor));
	if (rt_cloud_json_to_cbor(payload_json, strlen(payload_json), &e, RT_CLOUD_PAYLOAD_DEPTH) !=
	    RT_CLOUD_JSON_OK) {
		return 1;
	}
	eng_config_t config = {1024u * 1024u, 0};
	if (eng_init(&config) != 0) {
		return 1;
	}
	static char text[3 * RT_CLOUD_PAYLOAD_MAX];
	for (long i = 0; i < n; i++) {
		eng_scope_enter();
		eng_value_t v;
		if (direct) {
			const char *why = NULL;
			v = rt_cloud_payload_value(cbor, e.len, &why);
		} else {
			rt_cbor_dec_t d;
			rt_cbor_dec_init(&d, cbor, e.len);
			size_t len = 0;
			rt_cloud_cbor_to_json(&d, text, sizeof(text), &len, RT_CLOUD_PAYLOAD_DEPTH);
			v = eng_json_parse(text, len);
		}
		if (eng_typeof(v) != ENG_TYPE_OBJECT) {
			return 1;
		}
		eng_release(v);
		eng_scope_leave();
	}
	eng_deinit();
	printf("%u bytes of CBOR, %zu of JSON\n", (unsigned)e.len, strlen(payload_json));
	return 0;
}
