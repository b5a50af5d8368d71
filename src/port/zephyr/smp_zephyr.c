/*
 * The upload server behind Zephyr's MCUmgr (smp_zephyr.h).
 *
 * Zephyr's transports do what they are for: the SMP Bluetooth service and characteristic with
 * their reassembly of long requests (CONFIG_MCUMGR_TRANSPORT_BT), the UART with its framing
 * (CONFIG_MCUMGR_TRANSPORT_UART), the SMP header, the unknown group or command, the request
 * cut short. The groups the device serves are registered with "custom payload"
 * (CONFIG_MCUMGR_MGMT_CUSTOM_PAYLOAD): MCUmgr hands each request to this file undecoded, and the
 * portable server (rt_smp) answers it, exactly as it does on the simulator and the bare-metal
 * image, so the wire behaviour of docs/upload.md has one implementation. Nothing of Zephyr's own
 * groups is built: no image, file system, shell or reset command, so no SMP command can erase
 * storage, reset the device or stop the app; only an install of a package that passes its checks
 * (a signed one, when keys are trusted) switches the app.
 */
#include "smp_zephyr.h"

#include <stdio.h>
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>

#include "rt_loop.h"
#include "rt_smp.h"

LOG_MODULE_DECLARE(beacon, CONFIG_BEACON_LOG_LEVEL);

static rt_app_store_t *app_store;
static smp_zephyr_app_t app;

/* ------------------------------------------------------------------ apps deployed from the cloud */

/* A deployment installed during a sync, to switch to when the JavaScript thread's turn ends. */
static bool deployed;

/* rt_cloud_deploy's install, on the JavaScript thread inside the sync: the upload's install
 * (rt_app_store_install), then the upload's switch once this turn of the loop ends
 * (port_zephyr_smp_poll): the old app still runs from the slot the store now stages into. */
static int deploy_install(void *ctx, uint32_t len, char *msg, size_t cap)
{
	ARG_UNUSED(ctx);
	rt_package_t pkg;

	if (rt_app_store_install(app_store, len, &pkg, msg, cap) != RT_APP_STORE_OK) {
		LOG_WRN("deployment refused: %s", msg);
		return -1;
	}
	rt_smp_installed_msg(&pkg, msg, cap);
	LOG_INF("%s (deployed from the cloud)", msg);
	deployed = true;
	rt_loop_request_exit(RT_RUN_RESTART);
	return 0;
}

static bool deploy_running(void *ctx, const uint8_t **package, size_t *len)
{
	ARG_UNUSED(ctx);
	return rt_app_store_installed(app_store, package, len);
}

static rt_cloud_deploy_target_t deploy_target = {
	.install = deploy_install,
	.running = deploy_running,
};

const rt_cloud_deploy_target_t *port_zephyr_smp_deploy_target(void)
{
	return app_store != NULL ? &deploy_target : NULL;
}

/* The switch to a deployed app (the upload's: app.switch_to). True when there was one. */
static bool deployed_switch(void)
{
	const uint8_t *package;
	size_t len;
	char why[120];

	if (!deployed) {
		return false;
	}
	deployed = false;
	if (!rt_app_store_installed(app_store, &package, &len)) {
		return false;
	}
	if (app.switch_to(app.ctx, package, len, why, sizeof(why)) != 0) {
		LOG_WRN("deployed, but %s", why);
	}
	return true;
}

static void keep(rt_app_store_t *store, const smp_zephyr_app_t *with)
{
	app_store = store;
	app = *with;
	deploy_target.store = store;
}

#if defined(CONFIG_MCUMGR)

#include <zephyr/mgmt/mcumgr/mgmt/mgmt.h>
#include <zephyr/mgmt/mcumgr/smp/smp.h>
#include <zephyr/net/buf.h>
#include <zcbor_common.h>

#if defined(CONFIG_BT)
#include <zephyr/bluetooth/conn.h>
#endif

BUILD_ASSERT(IS_ENABLED(CONFIG_MCUMGR_MGMT_CUSTOM_PAYLOAD),
	     "the upload server answers requests itself: CONFIG_MCUMGR_MGMT_CUSTOM_PAYLOAD");

/* An upload idle this long may be taken over by another client (rt_smp.h). */
#define IDLE_MS 30000u
/* Answers are short: an offset, a status, a refusal's message. */
#define ANSWER_MAX 256u

static rt_smp_server_t server;

/* The install a request waits for, carried out on the JavaScript thread. */
static struct {
	bool pending;
	uint32_t len;
	int result;
	char msg[160];
} install_job;
static K_MUTEX_DEFINE(install_lock);
static K_SEM_DEFINE(install_done, 0, 1);

/*
 * Who sent a request: the Bluetooth connection, or the UART, which has one client (rt_smp keeps an
 * upload for its client). The Bluetooth transport is the one whose requests carry user data it
 * copies into the answer (smp_bt.c sets ud_copy; the UART's does not): the connection, first in
 * its struct smp_bt_user_data.
 */
#define CLIENT_UART 0x100u
static uint32_t client_of(const struct smp_streamer *ctxt)
{
#if defined(CONFIG_MCUMGR_TRANSPORT_BT)
	if (ctxt->smpt->functions.ud_copy != NULL) {
		struct bt_conn *const *conn = net_buf_user_data(ctxt->reader->nb);

		return *conn != NULL ? 1u + bt_conn_index(*conn) : 0u;
	}
#else
	ARG_UNUSED(ctxt);
#endif
	return CLIENT_UART;
}

/* Every command of the served groups: the request, header and body, goes to rt_smp as it came,
 * and the body of rt_smp's answer is the response's (MCUmgr writes the response header, which is
 * the same: the request's version, group, sequence and command, op + 1). */
static int handle(struct smp_streamer *ctxt)
{
	struct net_buf *req = ctxt->reader->nb;
	/* MCUmgr read the header and pulled it off this buffer: it is just before the body. */
	const uint8_t *packet = req->data - RT_SMP_HDR_SIZE;
	rt_smp_hdr_t hdr;

	if (!rt_smp_hdr_decode(packet, RT_SMP_HDR_SIZE, &hdr) || hdr.len > req->len) {
		return MGMT_ERR_ECORRUPT;
	}
	uint8_t answer[ANSWER_MAX];
	size_t n = rt_smp_handle(&server, client_of(ctxt), k_uptime_get_32(), packet,
				 RT_SMP_HDR_SIZE + hdr.len, answer, sizeof(answer));

	if (n < RT_SMP_HDR_SIZE) {
		return MGMT_ERR_EINVAL;
	}
	zcbor_state_t *zs = ctxt->writer->zs;
	size_t body = n - RT_SMP_HDR_SIZE;

	if ((size_t)(zs->payload_end - zs->payload_mut) < body) {
		return MGMT_ERR_EMSGSIZE;
	}
	memcpy(zs->payload_mut, answer + RT_SMP_HDR_SIZE, body);
	zs->payload_mut += body;
	return MGMT_ERR_EOK;
}

#define BOTH {.mh_read = handle, .mh_write = handle}

/* The commands rt_smp.h serves, per group: the others are answered "not supported" by MCUmgr. */
static const struct mgmt_handler os_handlers[] = {
	[RT_SMP_OS_ECHO] = BOTH,
	[RT_SMP_OS_PARAMS] = BOTH,
};
static const struct mgmt_handler fs_handlers[] = {
	[RT_SMP_FS_FILE] = BOTH,
	[RT_SMP_FS_STATUS] = BOTH,
	[RT_SMP_FS_HASH] = BOTH,
	[RT_SMP_FS_HASH_TYPES] = BOTH,
};
static const struct mgmt_handler beacon_handlers[] = {
	[RT_SMP_BEACON_STATUS] = BOTH,
	[RT_SMP_BEACON_INSTALL] = BOTH,
};

static struct mgmt_group groups[] = {
	{.mg_handlers = os_handlers, .mg_handlers_count = ARRAY_SIZE(os_handlers),
	 .mg_group_id = RT_SMP_GROUP_OS, .custom_payload = true},
	{.mg_handlers = fs_handlers, .mg_handlers_count = ARRAY_SIZE(fs_handlers),
	 .mg_group_id = RT_SMP_GROUP_FS, .custom_payload = true},
	{.mg_handlers = beacon_handlers, .mg_handlers_count = ARRAY_SIZE(beacon_handlers),
	 .mg_group_id = RT_SMP_GROUP_BEACON, .custom_payload = true},
};

/* rt_smp's install callback, on MCUmgr's work queue: the JavaScript thread does the switch. */
static int install(void *ctx, const rt_smp_staging_t *staging, uint32_t len, char *msg,
		   size_t msg_cap)
{
	ARG_UNUSED(ctx);
	ARG_UNUSED(staging); /* the store's staging slot */
	k_mutex_lock(&install_lock, K_FOREVER);
	install_job.len = len;
	install_job.pending = true;
	k_mutex_unlock(&install_lock);
	app.wake(app.ctx);
	/* The JavaScript thread comes round within one callback's work (the execution budget), or
	 * the watchdog resets the device and the request is gone with it. */
	(void)k_sem_take(&install_done, K_FOREVER);
	strncpy(msg, install_job.msg, msg_cap - 1);
	msg[msg_cap - 1] = '\0';
	return install_job.result;
}

bool port_zephyr_smp_poll(void)
{
	if (deployed_switch()) {
		return true;
	}
	k_mutex_lock(&install_lock, K_FOREVER);
	bool pending = install_job.pending;

	install_job.pending = false;
	k_mutex_unlock(&install_lock);
	if (!pending) {
		return false;
	}
	rt_package_t pkg;
	char *msg = install_job.msg;
	size_t cap = sizeof(install_job.msg);
	bool switched = false;

	if (rt_app_store_install(app_store, install_job.len, &pkg, msg, cap) != RT_APP_STORE_OK) {
		LOG_WRN("upload refused: %s", msg);
		install_job.result = -1;
	} else {
		const uint8_t *package;
		size_t len;
		char why[120];

		(void)rt_app_store_installed(app_store, &package, &len);
		if (app.switch_to(app.ctx, package, len, why, sizeof(why)) != 0) {
			/* Installed (it runs at the next boot too), but its top level failed. */
			snprintf(msg, cap, "installed, but %s", why);
			install_job.result = -1;
		} else {
			rt_smp_installed_msg(&pkg, msg, cap);
			install_job.result = 0;
		}
		switched = true;
		LOG_INF("upload: %s", msg);
	}
	k_sem_give(&install_done);
	return switched;
}

static void status(void *ctx, rt_smp_app_status_t *out)
{
	ARG_UNUSED(ctx);
	const uint8_t *package;
	size_t len;

	if (!rt_app_store_installed(app_store, &package, &len)) {
		package = NULL;
		len = 0;
	}
	rt_smp_status_of(out, package, len, app.state(app.ctx));
}

void port_zephyr_smp_init(rt_app_store_t *store, const smp_zephyr_app_t *with)
{
	static rt_smp_staging_t staging;

	keep(store, with);
	rt_app_store_smp_staging(store, &staging);
	rt_smp_config_t cfg = {
		.staging = &staging,
		.install = install,
		.status = status,
		.app_ctx = NULL,
		/* What the transports take: clients size their chunks to it. */
		.buf_size = CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE,
		.buf_count = CONFIG_MCUMGR_TRANSPORT_NETBUF_COUNT,
		.idle_ms = IDLE_MS,
	};

	rt_smp_init(&server, &cfg);
	for (size_t i = 0; i < ARRAY_SIZE(groups); i++) {
		mgmt_register_group(&groups[i]);
	}
	LOG_INF("upload service: SMP groups 0, 8 and 77, %u-byte requests",
		(unsigned)CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE);
}

#else /* no MCUmgr: no uploads */

void port_zephyr_smp_init(rt_app_store_t *store, const smp_zephyr_app_t *with)
{
	keep(store, with);
}

bool port_zephyr_smp_poll(void)
{
	return deployed_switch();
}

#endif
