/* Global helpers: print, toHex, toMs, toSec. */
#include <stdlib.h>
#include <string.h>

#include "api_types.h"
#include "hal_console.h"
#include "rt_config.h"
#include "rt_errors.h"
#include "rt_hex.h"
#include "rt_scratch.h"

/* Room for the longest 0.2.6 text (1024 characters) in UTF-8. */
#define PRINT_BUFFER (CONFIG_BEACON_PRINT_MAX * 3 + 1)
_Static_assert(PRINT_BUFFER <= RT_SCRATCH_BYTES, "print's text fits the scratch");

eng_value_t rt_print(const rt_print_args_t *args)
{
	/* The runtime's shared scratch (rt_scratch.h): copying and printing run no app code. */
	char *buf = rt_scratch_take("print");
	size_t size = eng_string_copy(args->text, buf, PRINT_BUFFER);
	if (size >= PRINT_BUFFER) {
		rt_scratch_give(buf);
		/* Before 0.2.6 print had no limit: a longer text goes out whole, from the heap. */
		char *big = malloc(size + 1);
		if (big == NULL) {
			return rt_throw_esr(RT_ESR0004_NO_RESOURCES, "print: %zu bytes of text", size);
		}
		eng_string_copy(args->text, big, size + 1);
		hal_console_print(big, size);
		free(big);
	} else {
		hal_console_print(buf, size);
		rt_scratch_give(buf);
	}
	return eng_undefined();
}

eng_value_t rt_toHex(const rt_toHex_args_t *args)
{
	eng_value_t source = args->array;
	size_t n;
	const uint8_t *bytes = eng_buffer_data(source, &n);
	bool is_array = bytes == NULL;
	if (is_array) {
		n = eng_array_length(source);
	}
	/* An array's length says nothing of its size (a sparse one of length 2^32 - 1 holds
	 * nothing): the text grows as its items pass the check, rather than being sized up front. */
	size_t cap = is_array && n > 64 ? 64 : n;
	char *out = malloc(2 * cap + 1);
	if (out == NULL) {
		return rt_throw_esr(RT_ESR0004_NO_RESOURCES, "toHex: %zu bytes", n);
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t b;
		if (i == cap) {
			cap = cap > n / 2 ? n : 2 * cap;
			char *bigger = realloc(out, 2 * cap + 1);
			if (bigger == NULL) {
				free(out);
				return rt_throw_esr(RT_ESR0004_NO_RESOURCES, "toHex: %zu bytes", n);
			}
			out = bigger;
		}
		if (is_array) {
			eng_value_t item = eng_get_index(source, (uint32_t)i);
			if (eng_is_exception(item)) {
				free(out);
				return item;
			}
			double v = eng_get_number(item);
			bool ok = eng_typeof(item) == ENG_TYPE_NUMBER && v >= 0 && v <= 255 &&
				  v == (double)(int)v;
			eng_release(item);
			if (!ok) {
				free(out);
				return rt_throw_arg(ENG_ERROR_RANGE,
						 "toHex: array[%zu] must be a byte value, a whole number from 0 to 255",
						 i);
			}
			b = (uint8_t)v;
		} else {
			b = bytes[i];
		}
		rt_hex_byte(b, out + 2 * i);
	}
	eng_value_t result = eng_string(out, 2 * n);
	free(out);
	return result;
}

eng_value_t rt_toMs(const rt_toMs_args_t *args)
{
	return eng_number(args->interval);
}

eng_value_t rt_toSec(const rt_toSec_args_t *args)
{
	return eng_number(args->interval);
}
