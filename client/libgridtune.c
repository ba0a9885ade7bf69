/* libgridtune.c: the handle's life (gt_connect, gt_disconnect) and the questions asked of the
 * daemon itself (gt_status, gt_reports). gt_connect finds the socket, starts the daemon
 * when it may and none answers (autostart.c), starts the connection (connection.c) and says
 * hello, whose version check is the daemon's to make. */
#include "autostart.h"
#include "connection.h"
#include "handle.h"
#include "handle_registry.h"
#include "last_error.h"
#include "message.h"

#include "protocol/protocol.h"
#include "protocol/socket_path.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/un.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define CLIENT_NAME "libgridtune " STR(GT_VERSION_MAJOR) "." STR(GT_VERSION_MINOR)

/* Room for a sentence made before the handle can hold it. */
#define SENTENCE_MAX 1024
#define SOCKET_PATH_MAX sizeof(((struct sockaddr_un *)0)->sun_path)

static bool is_count(const cJSON *v)
{
    double d = cJSON_IsNumber(v) ? v->valuedouble : 0;
    return d >= 1 && d <= (double)GT_JSON_INT_MAX && d == (double)(uint64_t)d;
}

/* The hello result, {protocol, daemon, pid, workers}, with the user's buffer store as its
 * descriptor when gridtuned has one: a daemon that accepted our version must
 * answer with the same one. */
static int check_hello(gt_client *c, const cJSON *result)
{
    const cJSON *protocol = cJSON_GetObjectItemCaseSensitive(result, "protocol");
    if (!cJSON_IsNumber(protocol) || protocol->valuedouble != GT_PROTOCOL_VERSION)
        return gt_fail(c, -EPROTONOSUPPORT, "gridtuned answered hello with protocol %g; libgridtune speaks %d",
                       cJSON_IsNumber(protocol) ? protocol->valuedouble : NAN, GT_PROTOCOL_VERSION);
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(result, "daemon")))
        return gt_fail(c, -EPROTO, "gridtuned answered hello without its \"daemon\" version");
    if (!is_count(cJSON_GetObjectItemCaseSensitive(result, "pid")) ||
        !is_count(cJSON_GetObjectItemCaseSensitive(result, "workers")))
        return gt_fail(c, -EPROTO, "gridtuned answered hello without a valid \"pid\" and \"workers\"");
    return 0;
}

static int hello(gt_client *c)
{
    cJSON *req = gt_msg_request("hello");
    if (!req || !cJSON_AddNumberToObject(req, "protocol", GT_PROTOCOL_VERSION) ||
        !cJSON_AddStringToObject(req, "client", CLIENT_NAME)) {
        cJSON_Delete(req);
        return gt_fail(c, -ENOMEM, "no memory for the hello request");
    }
    cJSON *result;
    int store;
    int rc = gt_conn_call_fd(c, req, NULL, 0, &result, &store);
    if (rc)
        return rc;
    rc = check_hello(c, result);
    cJSON_Delete(result);
    if (rc == 0)
        c->buffer_store = store; /* where buffers are made, when gridtuned has one for us (buffer.c) */
    else if (store >= 0)
        close(store);
    return rc;
}

static gt_client *client_new(void)
{
    gt_client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (gt_error_table_init(&c->errors)) {
        free(c);
        return NULL;
    }
    if (gt_conn_init(c)) {
        gt_error_table_free(&c->errors);
        free(c);
        return NULL;
    }
    if (gt_handle_add(c, GT_HANDLE_CLIENT, c)) {
        gt_conn_free(c);
        gt_error_table_free(&c->errors);
        free(c);
        return NULL;
    }
    return c;
}

/* The socket path: the caller's, else $GRIDTUNE_SOCKET, else the per-user default. */
static int pick_socket_path(const char *given, char *buf, size_t len, char *err, size_t errlen)
{
    const char *env = getenv(GT_ENV_SOCKET);
    const char *path = given ? given : env && *env ? env : NULL;
    if (!path)
        return gt_socket_user_path(buf, len, err, errlen);
    if (strlen(path) >= len) {
        snprintf(err, errlen, "the socket path %s is longer than a Unix socket allows (%zu bytes)", path, len - 1);
        return -ENAMETOOLONG;
    }
    memcpy(buf, path, strlen(path) + 1);
    return 0;
}

/* Connects to path; autostart is allowed only when the caller left the choice of socket to
 * us (socket_path NULL), so a program that names a socket never starts a daemon on it. */
static int dial(const char *path, bool may_start, int *fd, char *err, size_t errlen)
{
    int rc = gt_conn_dial(path, fd, err, errlen);
    if (!may_start || (rc != -ENOENT && rc != -ECONNREFUSED))
        return rc;
    if (gt_autostart_enabled())
        return gt_autostart(path, rc, fd, err, errlen);
    size_t n = strlen(err);
    snprintf(err + n, errlen - n, " (no daemon was started: " GT_ENV_NO_AUTOSTART "=1)");
    return rc;
}

int gt_connect(const char *socket_path_given, gt_client **out)
{
    if (!out)
        return gt_fail(NULL, -EINVAL, "gt_connect needs a place for the handle (out is NULL)");
    *out = client_new();
    gt_client *c = *out;
    if (!c)
        return gt_fail(NULL, -ENOMEM, "no memory for a gridtune handle");
    char path[SOCKET_PATH_MAX], err[SENTENCE_MAX];
    int fd = -1;
    int rc = pick_socket_path(socket_path_given, path, sizeof path, err, sizeof err);
    if (!rc)
        rc = dial(path, socket_path_given == NULL, &fd, err, sizeof err);
    if (rc)
        return gt_fail(c, rc, "%s", err);
    rc = gt_conn_start(c, fd);
    return rc ? rc : hello(c);
}

int gt_disconnect(gt_client *c)
{
    if (!c)
        return 0;
    /* taken out first: of two threads disconnecting c at once, only one frees it */
    if (!gt_handle_remove(c, GT_HANDLE_CLIENT))
        return gt_fail_dead(NULL, "gt_disconnect", c, GT_HANDLE_CLIENT);
    gt_conn_free(c);
    gt_buffers_free_all(c);
    gt_kernels_free_all(c);
    gt_error_table_free(&c->errors);
    free(c);
    return 0;
}

/* Sends req and prints its result's `field` as JSON text into *json_out. */
static int ask_json(gt_client *c, cJSON *req, const char *type, const char *field, char **json_out)
{
    cJSON *result;
    int rc = gt_conn_call(c, req, NULL, 0, &result);
    if (rc)
        return rc;
    rc = gt_msg_result_json(c, result, type, field, json_out);
    cJSON_Delete(result);
    return rc;
}

int gt_status(gt_client *c, char **json_out)
{
    if (json_out)
        *json_out = NULL;
    int rc = gt_handle_check_client(c, "gt_status");
    if (rc)
        return rc;
    if (!c || !json_out)
        return gt_fail(c, -EINVAL, "gt_status needs a handle and a place for the status (got NULL)");
    cJSON *req = gt_msg_request("status");
    if (!req)
        return gt_fail(c, -ENOMEM, "no memory for a status request");
    return ask_json(c, req, "status", "status", json_out);
}

int gt_reports(gt_client *c, unsigned limit, char **json_out)
{
    if (json_out)
        *json_out = NULL;
    int rc = gt_handle_check_client(c, "gt_reports");
    if (rc)
        return rc;
    if (!c || !json_out)
        return gt_fail(c, -EINVAL, "gt_reports needs a handle and a place for the reports (got NULL)");
    if (limit == 0)
        return gt_fail(c, -EINVAL, "a limit of 0 reports was asked for; ask for at least 1");
    cJSON *req = gt_msg_request("reports");
    if (!req || !cJSON_AddNumberToObject(req, "limit", limit)) {
        cJSON_Delete(req);
        return gt_fail(c, -ENOMEM, "no memory for a reports request");
    }
    return ask_json(c, req, "reports", "reports", json_out);
}
