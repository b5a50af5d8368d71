/*
 * hal_lock on Zephyr: interrupts off on this CPU (irq_lock), since the state it guards is
 * shared with ISRs and not only with threads. The critical sections are a few instructions long.
 */
#include "hal_lock.h"

#include <zephyr/irq.h>

hal_lock_key_t hal_lock(void)
{
	return irq_lock();
}

void hal_unlock(hal_lock_key_t key)
{
	irq_unlock(key);
}
