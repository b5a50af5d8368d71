#include "rt_ble_ad.h"

#include <stdio.h>
#include <string.h>

#include "rt_hex.h"

void rt_ble_ad_init(rt_ble_ad_t *ad)
{
	memset(ad, 0, sizeof(*ad));
}

/* Copies len bytes into the store; false when they do not fit. */
static bool store_put(rt_ble_ad_t *ad, const uint8_t *data, size_t len, rt_ble_span_t *span)
{
	if (len > sizeof(ad->store) - ad->used) {
		return false;
	}
	if (len > 0) {
		memcpy(ad->store + ad->used, data, len);
	}
	span->off = (uint8_t)ad->used; /* at most 255: the store's size */
	span->len = (uint8_t)len;
	ad->used = (uint16_t)(ad->used + len);
	return true;
}

void rt_ble_ad_set_flags(rt_ble_ad_t *ad, uint8_t flags)
{
	ad->flags = flags;
	ad->present |= RT_BLE_HAS_FLAGS;
}

void rt_ble_ad_set_tx_power(rt_ble_ad_t *ad, int8_t dbm)
{
	ad->tx_power = dbm;
	ad->present |= RT_BLE_HAS_TX_POWER;
}

rt_ble_status_t rt_ble_ad_set_name(rt_ble_ad_t *ad, const char *name, size_t len, bool complete)
{
	if (len > RT_BLE_AD_DATA_MAX) {
		return RT_BLE_E_TOO_BIG;
	}
	if (!store_put(ad, (const uint8_t *)name, len, &ad->name)) {
		return RT_BLE_E_FULL;
	}
	ad->name_complete = complete;
	ad->present |= RT_BLE_HAS_NAME;
	return RT_BLE_OK;
}

rt_ble_status_t rt_ble_ad_set_manuf(rt_ble_ad_t *ad, const uint8_t *data, size_t len)
{
	if (len > RT_BLE_AD_DATA_MAX) {
		return RT_BLE_E_TOO_BIG;
	}
	if (!store_put(ad, data, len, &ad->manuf)) {
		return RT_BLE_E_FULL;
	}
	ad->present |= RT_BLE_HAS_MANUF;
	return RT_BLE_OK;
}

static bool uuid_len_ok(size_t len)
{
	return len == 2 || len == 4 || len == 16;
}

rt_ble_status_t rt_ble_ad_add_uuid(rt_ble_ad_t *ad, const rt_ble_uuid_t *uuid)
{
	if (!uuid_len_ok(uuid->len)) {
		return RT_BLE_E_BAD_UUID;
	}
	if (ad->uuid_count >= RT_BLE_AD_MAX_UUIDS) {
		return RT_BLE_E_FULL;
	}
	ad->uuids[ad->uuid_count++] = *uuid;
	return RT_BLE_OK;
}

rt_ble_status_t rt_ble_ad_add_service_data(rt_ble_ad_t *ad, const rt_ble_uuid_t *uuid, const uint8_t *data,
					   size_t len)
{
	if (!uuid_len_ok(uuid->len)) {
		return RT_BLE_E_BAD_UUID;
	}
	if (len + uuid->len > RT_BLE_AD_DATA_MAX) {
		return RT_BLE_E_TOO_BIG;
	}
	if (ad->service_data_count >= RT_BLE_AD_MAX_SERVICE_DATA) {
		return RT_BLE_E_FULL;
	}
	rt_ble_service_data_t *entry = &ad->service_data[ad->service_data_count];
	if (!store_put(ad, data, len, &entry->data)) {
		return RT_BLE_E_FULL;
	}
	entry->uuid = *uuid;
	ad->service_data_count++;
	return RT_BLE_OK;
}

/* ------------------------------------------------------------------------------------ encoding */

static const uint8_t uuid_widths[3] = {2, 4, 16};
static const uint8_t uuid_list_bits[3] = {RT_BLE_UUID16_LIST, RT_BLE_UUID32_LIST, RT_BLE_UUID128_LIST};
static const uint8_t uuid_list_types[3][2] = {
	{RT_BLE_AD_TYPE_UUID16_COMPLETE, RT_BLE_AD_TYPE_UUID16_INCOMPLETE},
	{RT_BLE_AD_TYPE_UUID32_COMPLETE, RT_BLE_AD_TYPE_UUID32_INCOMPLETE},
	{RT_BLE_AD_TYPE_UUID128_COMPLETE, RT_BLE_AD_TYPE_UUID128_INCOMPLETE},
};

static uint8_t service_data_type(uint8_t uuid_len)
{
	return uuid_len == 2 ? RT_BLE_AD_TYPE_SERVICE_DATA16
	       : uuid_len == 4 ? RT_BLE_AD_TYPE_SERVICE_DATA32
			       : RT_BLE_AD_TYPE_SERVICE_DATA128;
}

static size_t uuid_list_bytes(const rt_ble_ad_t *ad, size_t width)
{
	size_t n = 0;
	for (size_t i = 0; i < ad->uuid_count; i++) {
		if (ad->uuids[i].len == width) {
			n += width;
		}
	}
	return n;
}

/* Sizes in the air of each part, structure headers included (0 when absent). */
typedef struct {
	size_t flags, tx_power, name, manuf, uuids;
	size_t service_data[RT_BLE_AD_MAX_SERVICE_DATA];
	size_t total;
} ad_sizes_t;

static void measure(const rt_ble_ad_t *ad, ad_sizes_t *s)
{
	memset(s, 0, sizeof(*s));
	s->flags = (ad->present & RT_BLE_HAS_FLAGS) && ad->flags != 0 ? 3 : 0;
	s->tx_power = (ad->present & RT_BLE_HAS_TX_POWER) ? 3 : 0;
	s->name = (ad->present & RT_BLE_HAS_NAME) ? 2u + ad->name.len : 0;
	s->manuf = (ad->present & RT_BLE_HAS_MANUF) ? 2u + ad->manuf.len : 0;
	for (size_t w = 0; w < 3; w++) {
		size_t n = uuid_list_bytes(ad, uuid_widths[w]);
		s->uuids += n ? 2 + n : 0;
	}
	s->total = s->flags + s->tx_power + s->name + s->manuf + s->uuids;
	for (size_t i = 0; i < ad->service_data_count; i++) {
		s->service_data[i] = 2u + ad->service_data[i].uuid.len + ad->service_data[i].data.len;
		s->total += s->service_data[i];
	}
}

size_t rt_ble_ad_encoded_size(const rt_ble_ad_t *ad)
{
	ad_sizes_t s;
	measure(ad, &s);
	return s.total;
}

static void consider(rt_ble_ad_fit_t *fit, rt_ble_field_t field, size_t bytes, const rt_ble_uuid_t *uuid)
{
	if (bytes > fit->field_bytes) {
		fit->field = field;
		fit->field_bytes = bytes;
		if (uuid) {
			fit->uuid = *uuid;
		}
	}
}

/* The biggest part is what to shorten. Ties go to the part considered first: the values an app
 * chooses the length of (name, manufacturer data, service data) before the fixed ones. */
static void blame(const rt_ble_ad_t *ad, const ad_sizes_t *s, rt_ble_ad_fit_t *fit)
{
	fit->field = RT_BLE_FIELD_NONE;
	fit->field_bytes = 0;
	memset(&fit->uuid, 0, sizeof(fit->uuid));
	consider(fit, RT_BLE_FIELD_NAME, s->name, NULL);
	consider(fit, RT_BLE_FIELD_MANUF, s->manuf, NULL);
	for (size_t k = 0; k < ad->service_data_count; k++) {
		consider(fit, RT_BLE_FIELD_SERVICE_DATA, s->service_data[k], &ad->service_data[k].uuid);
	}
	consider(fit, RT_BLE_FIELD_UUIDS, s->uuids, NULL);
	consider(fit, RT_BLE_FIELD_TX_POWER, s->tx_power, NULL);
	consider(fit, RT_BLE_FIELD_FLAGS, s->flags, NULL);
}

static uint8_t *put_header(uint8_t *p, size_t data_len, uint8_t type)
{
	*p++ = (uint8_t)(data_len + 1);
	*p++ = type;
	return p;
}

static uint8_t *put_uuid_le(uint8_t *p, const rt_ble_uuid_t *uuid)
{
	for (size_t i = 0; i < uuid->len; i++) {
		*p++ = uuid->bytes[uuid->len - 1 - i];
	}
	return p;
}

rt_ble_status_t rt_ble_ad_encode(const rt_ble_ad_t *ad, uint8_t *out, size_t cap, size_t *len,
				 rt_ble_ad_fit_t *fit)
{
	ad_sizes_t s;
	measure(ad, &s);
	if (s.total > cap) {
		if (fit) {
			fit->need = s.total;
			fit->cap = cap;
			blame(ad, &s, fit);
		}
		return RT_BLE_E_TOO_BIG;
	}
	uint8_t *p = out;
	if (s.flags) {
		p = put_header(p, 1, RT_BLE_AD_TYPE_FLAGS);
		*p++ = ad->flags;
	}
	if (s.tx_power) {
		p = put_header(p, 1, RT_BLE_AD_TYPE_TX_POWER);
		*p++ = (uint8_t)ad->tx_power;
	}
	for (size_t w = 0; w < 3; w++) {
		size_t n = uuid_list_bytes(ad, uuid_widths[w]);
		if (n == 0) {
			continue;
		}
		bool incomplete = (ad->uuid_incomplete & uuid_list_bits[w]) != 0;
		p = put_header(p, n, uuid_list_types[w][incomplete]);
		for (size_t i = 0; i < ad->uuid_count; i++) {
			if (ad->uuids[i].len == uuid_widths[w]) {
				p = put_uuid_le(p, &ad->uuids[i]);
			}
		}
	}
	for (size_t i = 0; i < ad->service_data_count; i++) {
		const rt_ble_service_data_t *e = &ad->service_data[i];
		p = put_header(p, e->uuid.len + e->data.len, service_data_type(e->uuid.len));
		p = put_uuid_le(p, &e->uuid);
		memcpy(p, rt_ble_ad_bytes(ad, e->data), e->data.len);
		p += e->data.len;
	}
	if (s.manuf) {
		p = put_header(p, ad->manuf.len, RT_BLE_AD_TYPE_MANUFACTURER);
		memcpy(p, rt_ble_ad_bytes(ad, ad->manuf), ad->manuf.len);
		p += ad->manuf.len;
	}
	if (s.name) {
		p = put_header(p, ad->name.len,
			       ad->name_complete ? RT_BLE_AD_TYPE_NAME_COMPLETE : RT_BLE_AD_TYPE_NAME_SHORT);
		memcpy(p, rt_ble_ad_bytes(ad, ad->name), ad->name.len);
		p += ad->name.len;
	}
	*len = (size_t)(p - out);
	return RT_BLE_OK;
}

const char *rt_ble_ad_field_name(rt_ble_field_t field)
{
	switch (field) {
	case RT_BLE_FIELD_FLAGS:
		return "flags";
	case RT_BLE_FIELD_TX_POWER:
		return "txPower";
	case RT_BLE_FIELD_NAME:
		return "name";
	case RT_BLE_FIELD_MANUF:
		return "manufData";
	case RT_BLE_FIELD_UUIDS:
		return "serviceUUIDs";
	case RT_BLE_FIELD_SERVICE_DATA:
		return "serviceData";
	case RT_BLE_FIELD_NONE:
		break;
	}
	return "packet";
}

size_t rt_ble_ad_fit_message(const rt_ble_ad_fit_t *fit, char *buf, size_t cap)
{
	char key[RT_BLE_UUID_HEX_MAX + 1] = "";
	if (fit->field == RT_BLE_FIELD_SERVICE_DATA) {
		rt_ble_ad_uuid_to_hex(&fit->uuid, key);
	}
	int n = snprintf(buf, cap, "packet needs %u bytes, advertising carries %u; largest part: %s%s%s%s (%u bytes)",
			 (unsigned)fit->need, (unsigned)fit->cap, rt_ble_ad_field_name(fit->field),
			 key[0] ? "['" : "", key, key[0] ? "']" : "", (unsigned)fit->field_bytes);
	return n < 0 ? 0 : (size_t)n;
}

/* ------------------------------------------------------------------------------------ decoding */

static void uuid_from_le(const uint8_t *p, size_t width, rt_ble_uuid_t *uuid)
{
	uuid->len = (uint8_t)width;
	for (size_t i = 0; i < width; i++) {
		uuid->bytes[i] = p[width - 1 - i];
	}
	memset(uuid->bytes + width, 0, sizeof(uuid->bytes) - width);
}

static void decode_uuid_list(rt_ble_ad_t *ad, const uint8_t *p, size_t n, size_t w, bool incomplete)
{
	size_t width = uuid_widths[w];
	if (n % width != 0) {
		ad->invalid++;
	}
	if (incomplete) {
		ad->uuid_incomplete |= uuid_list_bits[w];
	}
	for (size_t i = 0; i + width <= n; i += width) {
		if (ad->uuid_count >= RT_BLE_AD_MAX_UUIDS) {
			ad->dropped++;
			continue;
		}
		uuid_from_le(p + i, width, &ad->uuids[ad->uuid_count++]);
	}
}

static void decode_service_data(rt_ble_ad_t *ad, const uint8_t *p, size_t n, size_t width)
{
	if (n < width) {
		ad->invalid++;
		return;
	}
	if (ad->service_data_count >= RT_BLE_AD_MAX_SERVICE_DATA) {
		ad->dropped++;
		return;
	}
	rt_ble_service_data_t *e = &ad->service_data[ad->service_data_count];
	/* The store holds every value of the at most 255 bytes read, so this cannot fail. */
	if (!store_put(ad, p + width, n - width, &e->data)) {
		ad->dropped++;
		return;
	}
	uuid_from_le(p, width, &e->uuid);
	ad->service_data_count++;
}

static void decode_structure(rt_ble_ad_t *ad, uint8_t type, const uint8_t *p, size_t n)
{
	switch (type) {
	case RT_BLE_AD_TYPE_FLAGS:
		/* Only the first byte is defined; longer flags (CSS allows more octets) keep it. */
		if (n == 0) {
			ad->invalid++;
		} else if (ad->present & RT_BLE_HAS_FLAGS) {
			ad->dropped++;
		} else {
			rt_ble_ad_set_flags(ad, p[0]);
		}
		break;
	case RT_BLE_AD_TYPE_TX_POWER:
		if (n != 1) {
			ad->invalid++;
		} else if (ad->present & RT_BLE_HAS_TX_POWER) {
			ad->dropped++;
		} else {
			rt_ble_ad_set_tx_power(ad, (int8_t)p[0]);
		}
		break;
	case RT_BLE_AD_TYPE_NAME_SHORT:
	case RT_BLE_AD_TYPE_NAME_COMPLETE:
		/* A complete name wins over a shortened one, whichever came first. */
		if ((ad->present & RT_BLE_HAS_NAME) &&
		    (ad->name_complete || type == RT_BLE_AD_TYPE_NAME_SHORT)) {
			ad->dropped++;
		} else {
			if (ad->present & RT_BLE_HAS_NAME) {
				ad->dropped++;
			}
			(void)rt_ble_ad_set_name(ad, (const char *)p, n, type == RT_BLE_AD_TYPE_NAME_COMPLETE);
		}
		break;
	case RT_BLE_AD_TYPE_MANUFACTURER:
		/* The company identifier is part of the data: two bytes at least. */
		if (n < 2) {
			ad->invalid++;
		} else if (ad->present & RT_BLE_HAS_MANUF) {
			ad->dropped++;
		} else {
			(void)rt_ble_ad_set_manuf(ad, p, n);
		}
		break;
	case RT_BLE_AD_TYPE_UUID16_INCOMPLETE:
	case RT_BLE_AD_TYPE_UUID16_COMPLETE:
		decode_uuid_list(ad, p, n, 0, type == RT_BLE_AD_TYPE_UUID16_INCOMPLETE);
		break;
	case RT_BLE_AD_TYPE_UUID32_INCOMPLETE:
	case RT_BLE_AD_TYPE_UUID32_COMPLETE:
		decode_uuid_list(ad, p, n, 1, type == RT_BLE_AD_TYPE_UUID32_INCOMPLETE);
		break;
	case RT_BLE_AD_TYPE_UUID128_INCOMPLETE:
	case RT_BLE_AD_TYPE_UUID128_COMPLETE:
		decode_uuid_list(ad, p, n, 2, type == RT_BLE_AD_TYPE_UUID128_INCOMPLETE);
		break;
	case RT_BLE_AD_TYPE_SERVICE_DATA16:
		decode_service_data(ad, p, n, 2);
		break;
	case RT_BLE_AD_TYPE_SERVICE_DATA32:
		decode_service_data(ad, p, n, 4);
		break;
	case RT_BLE_AD_TYPE_SERVICE_DATA128:
		decode_service_data(ad, p, n, 16);
		break;
	default:
		ad->unknown++;
		break;
	}
}

bool rt_ble_ad_decode(const uint8_t *data, size_t len, rt_ble_ad_t *ad)
{
	rt_ble_ad_init(ad);
	if (len > RT_BLE_AD_EXT_MAX) {
		len = RT_BLE_AD_EXT_MAX;
		ad->truncated = true;
	}
	size_t i = 0;
	while (i < len) {
		size_t n = data[i];
		if (n == 0) {
			break;
		}
		if (n > len - i - 1) {
			ad->truncated = true;
			break;
		}
		decode_structure(ad, data[i + 1], data + i + 2, n - 1);
		i += n + 1;
	}
	return !ad->truncated && ad->invalid == 0 && ad->dropped == 0;
}

/* --------------------------------------------------------------------------------------- UUIDs */

rt_ble_status_t rt_ble_ad_uuid_from_bytes(const uint8_t *bytes, size_t len, rt_ble_uuid_t *uuid)
{
	if (!uuid_len_ok(len)) {
		return RT_BLE_E_BAD_UUID;
	}
	memset(uuid, 0, sizeof(*uuid));
	uuid->len = (uint8_t)len;
	memcpy(uuid->bytes, bytes, len);
	return RT_BLE_OK;
}

rt_ble_status_t rt_ble_ad_uuid_from_hex(const char *hex, size_t len, rt_ble_uuid_t *uuid)
{
	bool dashed = len == 36;
	if (!dashed && len != 4 && len != 8 && len != 32) {
		return RT_BLE_E_BAD_UUID;
	}
	rt_ble_uuid_t out;
	memset(&out, 0, sizeof(out));
	size_t digits = 0;
	for (size_t i = 0; i < len; i++) {
		if (dashed && (i == 8 || i == 13 || i == 18 || i == 23)) {
			if (hex[i] != '-') {
				return RT_BLE_E_BAD_UUID;
			}
			continue;
		}
		int d = rt_hex_digit(hex[i]);
		if (d < 0) {
			return RT_BLE_E_BAD_UUID;
		}
		out.bytes[digits / 2] = (uint8_t)(out.bytes[digits / 2] << 4 | d);
		digits++;
	}
	out.len = (uint8_t)(digits / 2);
	*uuid = out;
	return RT_BLE_OK;
}

size_t rt_ble_ad_uuid_to_hex(const rt_ble_uuid_t *uuid, char *out)
{
	size_t n = uuid_len_ok(uuid->len) ? uuid->len : 0;
	rt_hex_encode(uuid->bytes, n, out);
	return 2 * n;
}

rt_ble_uuid_t rt_ble_ad_uuid16(uint16_t value)
{
	rt_ble_uuid_t uuid;
	memset(&uuid, 0, sizeof(uuid));
	uuid.len = 2;
	uuid.bytes[0] = (uint8_t)(value >> 8);
	uuid.bytes[1] = (uint8_t)value;
	return uuid;
}

bool rt_ble_ad_uuid_equal(const rt_ble_uuid_t *a, const rt_ble_uuid_t *b)
{
	return a->len == b->len && a->len <= sizeof(a->bytes) && memcmp(a->bytes, b->bytes, a->len) == 0;
}
