/* dispatch.h: the dispatch of requests to their handlers (dispatch.c), and the handlers of
 * each request family: buffers.c, kernels.c, launches.c, status.c and wisdom.c. */
#ifndef GT_DISPATCH_H
#define GT_DISPATCH_H

#include "reply.h"

/* Checks the request's id and type and runs its handler. fds are the frame's descriptors;
 * those a handler did not keep (set to -1) are closed by the caller. */
void gt_requests_dispatch(gt_session *s, const cJSON *msg, int *fds, unsigned nfds);

void gt_handle_buffer_create(const gt_request *r);
void gt_handle_buffer_release(const gt_request *r);
void gt_handle_kernel_load(const gt_request *r);
void gt_handle_kernel_build(const gt_request *r);
void gt_handle_kernel_release(const gt_request *r);
void gt_handle_launch(const gt_request *r);
void gt_handle_wait(const gt_request *r);
void gt_handle_report(const gt_request *r);
void gt_handle_event_release(const gt_request *r);
void gt_handle_cancel(const gt_request *r);
void gt_handle_status(const gt_request *r);
void gt_handle_reports(const gt_request *r);
void gt_handle_wisdom_import(const gt_request *r);
void gt_handle_wisdom_clear(const gt_request *r);

#endif
