/* Whole-file reads and writes for the host tools. */
#ifndef FILE_UTIL_H
#define FILE_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* malloc'ed contents (with a NUL after them) or NULL with errno set. */
uint8_t *file_read(const char *path, size_t *len);
int file_write(const char *path, const uint8_t *data, size_t len);

#endif /* FILE_UTIL_H */
