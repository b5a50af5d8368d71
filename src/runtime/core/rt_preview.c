/*
 * preview(): data for the visualisation console, as one JSON text.
 *
 * The spec lists no errors for preview; these follow storage.save and cloud.enqueue: what JSON
 * cannot carry is ESR0203, and a text longer than print's limit (1024 bytes) is ESR0204.
 */
#include <stdlib.h>

#include "api_types.h"
#include "hal_console.h"
#include "rt_config.h"
#include "rt_errors.h"
#include "rt_pure.h"

eng_value_t rt_preview(const rt_preview_args_t *args)
{
	if (!rt_pure_check(args->data)) {
		return rt_throw_esr(RT_ESR0203_NOT_SERIALIZABLE,
				    "preview: data holds a function, promise, handle or cycle");
	}
	eng_value_t json = eng_json_stringify(args->data);
	if (eng_is_exception(json)) {
		return json;
	}
	size_t size = eng_string_size(json);
	if (size > CONFIG_BEACON_PRINT_MAX) {
		eng_release(json);
		return rt_throw_esr(RT_ESR0204_TOO_BIG, "preview: %zu bytes of JSON (at most %d)", size,
				    CONFIG_BEACON_PRINT_MAX);
	}
	char text[CONFIG_BEACON_PRINT_MAX + 1];
	size_t len = eng_string_copy(json, text, sizeof(text));
	eng_release(json);
	hal_console_preview(text, len);
	return eng_undefined();
}
