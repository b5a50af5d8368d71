#include "rt_pure.h"

#include "rt_handle.h"

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
	if (eng_typeof(v) == ENG_TYPE_ARRAY) {
		/* JSON carries an array's elements only: walk them by index, which costs neither the
		 * key strings nor the lookups by name of the general case. */
		uint32_t n = eng_array_length(v);
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
	bool pure = true;
	uint32_t n = eng_array_length(keys);
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
