/* requests.h: the table of request types gridtuned answers, and the handlers that are not
 * about kernels (kernel_requests.c) or launches (launch.c). */
#ifndef GT_REQUESTS_H
#define GT_REQUESTS_H

#include "request.h"

/* Checks the request's id and type and runs its handler. fds are the frame's descriptors;
 * those a handler did not keep (set to -1) are closed by the caller. */
void gt_requests_dispatch(gt_session *s, const cJSON *msg, int *fds, unsigned nfds);

void gt_handle_kernel_load(const gt_request *r);
void gt_handle_kernel_build(const gt_request *r);
void gt_handle_kernel_release(const gt_request *r);
void gt_handle_launch(const gt_request *r);
void gt_handle_wait(const gt_request *r);
void gt_handle_report(const gt_request *r);
void gt_handle_event_release(const gt_request *r);
void gt_handle_wisdom_import(const gt_request *r);
void gt_handle_wisdom_clear(const gt_request *r);

#endif
