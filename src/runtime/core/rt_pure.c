#include "rt_pure.h"

#include "rt_handle.h"

/* Whether a key is an array index: digits without a leading zero, below 2^32 - 1. */
static bool is_index(const char *name, size_t len)
{
	if (len == 0 || len > 10 || (name[0] == '0' && len > 1)) {
		return false;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (name[i] < '0' || name[i] > '9') {
			return false;
		}
		v = v * 10u + (uint64_t)(name[i] - '0');
	}
	return v < 0xffffffffull;
}

static bool pure_at(eng_value_t v, int depth)
{
	switch (eng_typeof(v)) {
	case ENG_TYPE_FUNCTION:
	case ENG_TYPE_PROMISE:
	case ENG_TYPE_SYMBOL:
	case ENG_TYPE_BIGINT:
	case ENG_TYPE_EXCEPTION:
		return false;
	case ENG_TYPE_ARRAY:
	case ENG_TYPE_OBJECT:
	case ENG_TYPE_ERROR:
		break;
	default:
		return true;
	}
	/* A cycle makes the walk go deeper than any limit, so the depth check refuses it too. */
	if (depth >= RT_PURE_DEPTH || rt_handle_is_any(v)) {
		return false;
	}
	uint32_t n = eng_typeof(v) == ENG_TYPE_ARRAY ? eng_array_length(v) : 0;
	if (n > 0 && n <= RT_PURE_INDEX_WALK_MAX) {
		/* JSON carries an array's elements only: walk them by index, which costs neither the
		 * key strings nor the lookups by name of the general case. A longer array is walked by
		 * its keys, as an object: `a[4e9] = 1` makes an array of four billion holes (nulls to
		 * JSON) and one element, and a walk by index would run for hours. */
		bool pure = true;
		for (uint32_t i = 0; i < n && pure; i++) {
			eng_value_t item = eng_get_index(v, i);
			pure = !eng_is_exception(item) && pure_at(item, depth + 1);
			eng_release(item);
		}
		return pure;
	}
	eng_value_t keys = eng_keys(v);
	if (eng_is_exception(keys)) {
		eng_release(keys);
		return false;
	}
	bool pure = true, array = eng_typeof(v) == ENG_TYPE_ARRAY;
	n = eng_array_length(keys);
	for (uint32_t i = 0; i < n && pure; i++) {
		eng_value_t key = eng_get_index(keys, i);
		char name[256];
		size_t len = eng_string_copy(key, name, sizeof(name));
		eng_release(key);
		if (len >= sizeof(name)) {
			/* A key longer than 255 bytes cannot be read back here: refuse rather than guess. */
			pure = false;
			break;
		}
		if (array && !is_index(name, len)) {
			continue; /* JSON carries an array's elements only */
		}
		eng_value_t item = eng_get(v, name);
		pure = !eng_is_exception(item) && pure_at(item, depth + 1);
		eng_release(item);
	}
	eng_release(keys);
	return pure;
}

bool rt_pure_check(eng_value_t value)
{
	return pure_at(value, 0);
}
