/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A fence's bounded wait (wireup/transport.h): apart, so that the transport
 * modules link it without the rest of the shim. */
#include <time.h>

#include "wireup/transport.h"

void wireup_wait_reset(struct wireup_wait *wait)
{
	pthread_mutex_lock(&wait->lock);
	wait->done = false;
	wait->status = 0;
	pthread_mutex_unlock(&wait->lock);
}

void wireup_wait_done(struct wireup_wait *wait, int status)
{
	pthread_mutex_lock(&wait->lock);
	wait->status = status;
	wait->done = true;
	pthread_cond_signal(&wait->done_cond);
	pthread_mutex_unlock(&wait->lock);
}

int wireup_wait_for(struct wireup_wait *wait, unsigned timeout_s, int *status, struct dist_err *err)
{
	struct timespec deadline;
	bool done;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_s;
	pthread_mutex_lock(&wait->lock);
	while (!wait->done && pthread_cond_timedwait(&wait->done_cond, &wait->lock, &deadline) == 0)
		;
	done = wait->done;
	*status = wait->status;
	pthread_mutex_unlock(&wait->lock);
	if (!done)
		return dist_err_set(err,
		                    "timed out after %u s waiting for the step's other tasks; one "
		                    "of them failed or never started (see their errors)",
		                    timeout_s);
	return 0;
}
