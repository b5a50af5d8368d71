/*
 * rt_color.h: HTML colour descriptions for io.setLedColor: the CSS colour keywords ('red',
 * 'rebeccapurple'; any case), '#rgb' and '#rrggbb'.
 */
#ifndef RT_COLOR_H
#define RT_COLOR_H

#include <stdbool.h>
#include <stddef.h>

/* Parse text (len bytes) into red, green, blue from 0 to 1; false when it is no colour. */
bool rt_color_parse(const char *text, size_t len, float rgb[3]);

#endif /* RT_COLOR_H */
