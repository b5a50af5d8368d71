/*
 * C library gaps of Debian's newlib for this image.
 *
 * The runtime formats size_t with C99's %zu; Debian's newlib is built without its C99 I/O
 * formats and prints "zu" literally (newlib-nano has them but not %llu, which the figures use).
 * snprintf and vsnprintf are wrapped (-Wl,--wrap) to drop the z modifier before newlib sees the
 * format: on this 32-bit target size_t is unsigned int, passed and read exactly as %u reads it.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(size_t) == sizeof(unsigned int), "%zu rewritten as %u needs a 32-bit size_t");

int __real_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);
int __wrap_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);
int __wrap_snprintf(char *buf, size_t cap, const char *fmt, ...);

/* fmt without its z length modifiers into out; false when it does not fit (fmt is used as is). */
static bool without_z(const char *fmt, char *out, size_t cap)
{
	size_t n = 0;
	for (const char *p = fmt; *p; p++) {
		if (n + 1 >= cap) {
			return false;
		}
		out[n++] = *p;
		if (*p != '%') {
			continue;
		}
		if (p[1] == '%') {
			out[n++] = *++p;
			continue;
		}
		/* Flags, width and precision, then the length modifier. */
		while (p[1] && strchr("-+ #0123456789.*", p[1]) != NULL) {
			if (n + 1 >= cap) {
				return false;
			}
			out[n++] = *++p;
		}
		if (p[1] == 'z') {
			p++;
		}
	}
	out[n] = '\0';
	return true;
}

int __wrap_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
	char plain[256];
	if (fmt != NULL && strstr(fmt, "%") != NULL && strchr(fmt, 'z') != NULL &&
	    without_z(fmt, plain, sizeof(plain))) {
		fmt = plain;
	}
	return __real_vsnprintf(buf, cap, fmt, ap);
}

int __wrap_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = __wrap_vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}
