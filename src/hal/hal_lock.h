/*
 * hal_lock.h: a short critical section, for state shared with driver threads and ISRs (the
 * event queue). Never held across a call into the engine.
 */
#ifndef HAL_LOCK_H
#define HAL_LOCK_H

typedef unsigned int hal_lock_key_t;

hal_lock_key_t hal_lock(void);
void hal_unlock(hal_lock_key_t key);

#endif /* HAL_LOCK_H */
