#include "rt_errors.h"

#include <stdio.h>

#include "rt_api_version.h"

typedef struct {
	const char *code;
	const char *text;
	const char *legacy; /* the uncoded 0.0.9 wording, for the errors the spec codes only from
			     * 0.1.5 (ESR0004 keeps its words, without the code) */
} rt_esr_info_t;

static const rt_esr_info_t esr_table[RT_ESR_COUNT] = {
	[RT_ESR0001_UNKNOWN] = {"ESR0001", "Unknown", NULL},
	[RT_ESR0002_REBOOT_LOOP] = {"ESR0002", "Reboot loop detected", NULL},
	[RT_ESR0003_UNSUPPORTED] = {"ESR0003", "Unsupported feature", NULL},
	[RT_ESR0004_NO_RESOURCES] = {"ESR0004", "Not enough resources", "Not enough resources"},
	[RT_ESR0005_TIME_INVALID] = {"ESR0005", "Time is not valid", NULL},
	[RT_ESR0104_INTERRUPTED] = {"ESR0104", "Execution interrupted", NULL},
	[RT_ESR0201_STORAGE_ERROR] = {"ESR0201", "Storage error", "Storage system error"},
	[RT_ESR0202_NO_STORAGE_SPACE] = {"ESR0202", "No storage space", "Not enough storage space"},
	[RT_ESR0203_NOT_SERIALIZABLE] = {"ESR0203", "Not serializable", "Not serializable value"},
	[RT_ESR0204_TOO_BIG] = {"ESR0204", "Message too big", "Message is too big"},
	[RT_ESR0205_STORE_TIMEOUT] = {"ESR0205", "Data store timeout", NULL},
	[RT_ESR0401_MODEM_UNKNOWN] = {"ESR0401", "Modem unknown error", NULL},
	[RT_ESR0403_MODEM_COMMAND] = {"ESR0403", "Modem command error", NULL},
	[RT_ESR0405_SIM_ERROR] = {"ESR0405", "SIM card error/missing", NULL},
	[RT_ESR0407_MODEM_FORCED_STOP] = {"ESR0407", "Modem forced stop", NULL},
	[RT_ESR0410_AIRPLANE_MODE] = {"ESR0410", "Airplane mode is on", NULL},
	[RT_ESR0415_NOT_REGISTERED] = {"ESR0415", "Not registered", NULL},
	[RT_ESR0501_INVALID_ARGUMENT] = {"ESR0501", "Invalid argument", NULL},
	[RT_ESR0502_ARGUMENTS_DISAGREE] = {"ESR0502", "Arguments do not agree", NULL},
	[RT_ESR0503_WRONG_THIS] = {"ESR0503", "Not an object of this kind", NULL},
	[RT_ESR0601_SYNC_NO_NETWORK] = {"ESR0601", "No network", NULL},
	[RT_ESR0602_SYNC_REFUSED] = {"ESR0602", "Cloud refused the device", NULL},
	[RT_ESR0603_SYNC_CONNECTION] = {"ESR0603", "Connection failed", NULL},
	[RT_ESR0604_SYNC_TIMEOUT] = {"ESR0604", "Sync timeout", NULL},
	[RT_ESR0605_SYNC_PROTOCOL] = {"ESR0605", "Sync protocol error", NULL},
	[RT_ESR0606_SYNC_UNTRUSTED] = {"ESR0606", "Cloud certificate not trusted", NULL},
	[RT_ESR0701_WRONG_TYPE] = {"ESR0701", "Wrong argument type", NULL},
	[RT_ESR0901_GNSS_NO_FIX] = {"ESR0901", "No fix", NULL},
	[RT_ESR0902_GNSS_ERROR] = {"ESR0902", "GNSS error", NULL},
	[RT_ESR1701_BAD_ROLE_ARGS] = {"ESR1701", "Bad args for role", NULL},
	[RT_ESR1703_INVALID_OPTIONS] = {"ESR1703", "Invalid options", NULL},
	[RT_ESR1801_UNSUPPORTED_EVENT] = {"ESR1801", "Unsupported event", NULL},
	[RT_ESR1802_BAD_EVENT_OPTIONS] = {"ESR1802", "Bad event options", NULL},
	[RT_ESR1803_SENSOR_ERROR] = {"ESR1803", "Internal sensor error", NULL},
	[RT_ESR1804_DATA_TOO_BIG] = {"ESR1804", "Data too big", NULL},
	[RT_ESR1805_BAD_DATA_FORMAT] = {"ESR1805", "Bad data format", NULL},
};

#define RT_API_0_1_0 RT_API_VERSION(0, 1, 0)

const char *rt_esr_code(rt_esr_t esr)
{
	return esr < RT_ESR_COUNT ? esr_table[esr].code : esr_table[0].code;
}

const char *rt_esr_text(rt_esr_t esr)
{
	return esr < RT_ESR_COUNT ? esr_table[esr].text : esr_table[0].text;
}

static eng_value_t make_error(bool thrown, eng_error_kind_t kind, rt_esr_t esr, const char *fmt,
			      va_list ap)
{
	if (esr >= RT_ESR_COUNT) {
		esr = RT_ESR0001_UNKNOWN;
	}
	const rt_esr_info_t *info = &esr_table[esr];
	/* 0.0.9 is uncoded only where the spec says so: the errors that had other wording then. */
	bool coded = rt_api_version() >= RT_API_0_1_0 || info->legacy == NULL;
	const char *text = coded ? info->text : info->legacy;
	char detail[192] = "";
	if (fmt != NULL) {
		vsnprintf(detail, sizeof(detail), fmt, ap);
	}
	const char *sep = detail[0] ? ": " : "";
	eng_value_t err = eng_error(kind, coded ? info->code : NULL, "%s%s%s", text, sep, detail);
	return thrown ? eng_throw_value(err) : err;
}

static rt_esr_t arg_esr(eng_error_kind_t kind)
{
	return kind == ENG_ERROR_TYPE ? RT_ESR0701_WRONG_TYPE : RT_ESR0501_INVALID_ARGUMENT;
}

eng_value_t rt_throw_arg(eng_error_kind_t kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	eng_value_t v = make_error(true, kind, arg_esr(kind), fmt, ap);
	va_end(ap);
	return v;
}

eng_value_t rt_error_arg(eng_error_kind_t kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	eng_value_t v = make_error(false, kind, arg_esr(kind), fmt, ap);
	va_end(ap);
	return v;
}

eng_value_t rt_error_kind(eng_error_kind_t kind, rt_esr_t esr, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	eng_value_t v = make_error(false, kind, esr, fmt, ap);
	va_end(ap);
	return v;
}

eng_value_t rt_throw_esr(rt_esr_t esr, const char *detail_fmt, ...)
{
	va_list ap;
	va_start(ap, detail_fmt);
	eng_value_t v = make_error(true, ENG_ERROR_COMMON, esr, detail_fmt, ap);
	va_end(ap);
	return v;
}

eng_value_t rt_error_esr(rt_esr_t esr, const char *detail_fmt, ...)
{
	va_list ap;
	va_start(ap, detail_fmt);
	eng_value_t v = make_error(false, ENG_ERROR_COMMON, esr, detail_fmt, ap);
	va_end(ap);
	return v;
}

eng_value_t rt_not_implemented(const char *function)
{
	return rt_throw_esr(RT_ESR0003_UNSUPPORTED, "%s is not available in this firmware build",
			    function);
}
