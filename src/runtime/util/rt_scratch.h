/*
 * rt_scratch.h: the runtime's one shared buffer for work that lasts one API call or one step of
 * a cloud exchange (docs/architecture.md, "Shared scratch").
 *
 * The runtime runs one API call or one sync step at a time, on one thread, for every device. The
 * large buffers of those calls (storage's record text, cloud.enqueue's JSON and record, a batch
 * frame with its event table, print's text, nfc.setMsg's records) therefore need not each be a
 * static of their own: they are views of this one buffer, taken for a stretch of C code and given
 * back before anything that may run JavaScript. Rules:
 *
 *   - Take it, use it, give it back in the same C function (or its callees). Never keep a pointer
 *     into it past rt_scratch_give.
 *   - Never call into JavaScript while holding it: eng_call, rt_loop_invoke, eng_json_stringify
 *     (toJSON and getters run), eng_get or eng_set on an app's object (getters and setters run),
 *     rt_loop_run_jobs. A handler may call storage.save or cloud.enqueue, which take it again.
 *   - What must outlive a call lives elsewhere: in flash (queued events, records), on the VM heap
 *     (cloud variables' JSON), in the transport (a published frame is the transport's copy).
 *
 * A second take while it is held is a bug in the runtime, not an app error: the device resets
 * with the names of both holders (eng_port_fatal), and the tests would show it.
 *
 * RT_SCRATCH_BYTES is the largest of its users' layouts; each user checks its own layout fits
 * with a static assertion next to its code.
 */
#ifndef RT_SCRATCH_H
#define RT_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

/* 17 KB: a cloud batch (its 12 kB frame with room to read an event in place, and its 4.6 kB
 * event table) is the largest user; cloud.enqueue's record and JSON text, storage's 12 kB record,
 * print's text and nfc.setMsg's records fit in it. */
#define RT_SCRATCH_BYTES 17408u

/* The buffer, for `who` (a string literal naming the holder, for the fatal message). */
void *rt_scratch_take(const char *who);
/* Give it back; `p` is what rt_scratch_take returned. */
void rt_scratch_give(void *p);
/* The holder's name, or NULL when free (for tests). */
const char *rt_scratch_holder(void);
/* A device reset: whatever held the buffer was cut short with the device's RAM (the simulator
 * resets one simulated device by a jump out of its code). */
void rt_scratch_reset(void);

#endif /* RT_SCRATCH_H */
