/*
 * rt_app_store_claim.c: the staging slot's owner (rt_app_store_stage_claim), and the staging slot
 * as the SMP server's staging area, which an SMP upload writes under that claim.
 */
#include <stdint.h>

#include "hal_lock.h"
#include "rt_app_store.h"

rt_app_store_err_t rt_app_store_stage_claim(rt_app_store_t *s, rt_app_store_owner_t owner, uint32_t now_ms,
					    uint32_t idle_ms)
{
	if (owner == RT_APP_STORE_OWNER_NONE) {
		return RT_APP_STORE_EINVAL;
	}
	rt_app_store_err_t err = RT_APP_STORE_OK;
	hal_lock_key_t key = hal_lock();
	/* Idle: the holder's last use at least its idle time ago; a time before it never is. */
	int32_t unused = (int32_t)(now_ms - s->claim_ms);
	if (s->claim != RT_APP_STORE_OWNER_NONE && s->claim != owner &&
	    (unused < 0 || (uint32_t)unused < s->claim_idle_ms)) {
		err = RT_APP_STORE_EBUSY;
	} else {
		s->claim = (uint8_t)owner;
		s->claim_ms = now_ms;
		s->claim_idle_ms = idle_ms;
	}
	hal_unlock(key);
	return err;
}

void rt_app_store_stage_release(rt_app_store_t *s, rt_app_store_owner_t owner)
{
	hal_lock_key_t key = hal_lock();
	if (s->claim == (uint8_t)owner) {
		s->claim = RT_APP_STORE_OWNER_NONE;
	}
	hal_unlock(key);
}

rt_app_store_owner_t rt_app_store_stage_owner(const rt_app_store_t *s)
{
	hal_lock_key_t key = hal_lock();
	rt_app_store_owner_t owner = (rt_app_store_owner_t)s->claim;
	hal_unlock(key);
	return owner;
}

/* --- the staging slot as the SMP server's staging area --- */

static int smp_begin(void *ctx, uint32_t total)
{
	return rt_app_store_stage_begin(ctx, total) == RT_APP_STORE_OK ? 0 : -1;
}

static int smp_write(void *ctx, uint32_t off, const uint8_t *data, size_t len)
{
	return rt_app_store_stage_write(ctx, off, data, len) == RT_APP_STORE_OK ? 0 : -1;
}

static int smp_read(void *ctx, uint32_t off, uint8_t *data, size_t len)
{
	return rt_app_store_stage_read(ctx, off, data, len) == RT_APP_STORE_OK ? 0 : -1;
}

static int smp_claim(void *ctx, uint32_t now_ms, uint32_t idle_ms)
{
	return rt_app_store_stage_claim(ctx, RT_APP_STORE_OWNER_UPLOAD, now_ms, idle_ms) == RT_APP_STORE_OK ? 0 : -1;
}

static void smp_release(void *ctx)
{
	rt_app_store_stage_release(ctx, RT_APP_STORE_OWNER_UPLOAD);
}

void rt_app_store_smp_staging(rt_app_store_t *s, rt_smp_staging_t *out)
{
	*out = (rt_smp_staging_t){smp_begin, smp_write, smp_read, s->capacity, s, smp_claim, smp_release,
				  RT_APP_STORE_BUSY_MSG};
}
