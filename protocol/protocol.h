/* protocol.h: the messages of gridtune's protocol, shared by libgridtune and gridtuned.
 *
 * Every frame (wire.h) holds one JSON object with a "type". The client sends requests, each
 * with an "id" it chose (an integer 1 .. 2^53-1, unique among its requests in flight); the
 * daemon answers each request exactly once, with a "result" or an "error" frame carrying the
 * same id. Answers may come out of request order: "wait", "report" and a "launch" with answer
 * "completed" are answered when their launch completes. The first request on a connection must be "hello", which names the
 * protocol version; any other version is refused with a sentence saying which one the daemon
 * speaks, and the connection is closed. The messages are described, one schema per type, by
 * schemas/protocol/<type>.schema.json (requests) and <type>.result.schema.json (results).
 *
 * Requests (fields besides "type" and "id")            Result fields (besides "type", "id")
 *   hello          {protocol, client}                  {protocol, daemon, pid, workers}
 *   buffer_create  {size} + one memfd, F_SEAL_SHRINK   {buffer}
 *   buffer_release {buffer}                            {}
 *   kernel_load    {path, name}                        {kernel, params}
 *   kernel_build   {source, name, options}             {kernel, params, cached}
 *   kernel_release {kernel}                            {}
 *   launch         {kernel, range, args, options, wait, {event}; with answer "completed" once
 *                   answer?, keep_event?}                  it ran, the event only if kept
 *   wait           {event}                             {event}   once the launch succeeded
 *   report         {event}                             {report}  once the launch completed
 *   event_release  {event}                             {}
 *   cancel         {event}                             {cancelled}  whether it takes effect
 *   status         {}                                  {status}
 *   reports        {limit}                             {reports} newest first
 *   wisdom_import  {wisdom: a wisdom document}         {merged, entries}  saved before the answer
 *   wisdom_clear   {}                                  {cleared, entries} saved before the answer
 *
 * Field forms:
 *   buffer, kernel, event  integers 1 .. 2^53-1 the daemon chose; they name objects of this
 *                          connection only
 *   params                 [{name, type, kind: "scalar"|"buffer"|"buffer_ro", size}]
 *   range                  {dims: 1..3, global: [dims sizes], local: [dims sizes]}
 *   args                   [one object per argument, with exactly one key:
 *                          {"buffer": id} | {"i32": n} | {"u32": n} | {"f32": x} | {"f64": x}
 *                          | {"i64": "decimal"} | {"u64": "decimal"}]; 64-bit integers travel
 *                          as decimal strings, since JSON numbers are doubles; a float that is
 *                          not finite travels as "nan", "inf" or "-inf"
 *   options                {schedule?: canonical text, tuning?: "auto"|"off"|"retune",
 *                          budget?: (0, 0.5), metric?: "time"|"ipc"|"l1"|"l2"|"energy"}
 *   wait                   [event ids of this connection's earlier launches]
 *   answer                 "queued" (default) | "completed"
 *   keep_event             true (default) | false, only with answer "completed"
 *
 * Errors: {type: "error", id, code, errno, message}. id is null when the frame could not be
 * read as a request. errno is the positive errno the client returns negated. code is one of
 * the GT_ERR_* strings below; the errno beside each is the usual one, and a code may carry
 * another when it says more (EPERM for a build refused by policy, ETIME for a build killed).
 * A request with a field it does not know (a misspelt option) is a bad_request. After a broken frame (bad header, oversized, truncated) the
 * stream cannot be resynchronised: the daemon answers once and closes the connection. A
 * frame that is whole but not valid JSON, or not a valid request, is answered and the
 * connection goes on. */
#ifndef GT_PROTOCOL_H
#define GT_PROTOCOL_H

#define GT_PROTOCOL_VERSION 1

/* Error codes, with the errno each carries. */
#define GT_ERR_FRAME "bad_frame"        /* EPROTO / EMSGSIZE: the framing is broken */
#define GT_ERR_JSON "bad_json"          /* EBADMSG: the frame is not a JSON object */
#define GT_ERR_REQUEST "bad_request"    /* EINVAL: a field is missing, of the wrong type, or out of range */
#define GT_ERR_TYPE "unknown_type"      /* EOPNOTSUPP: no such message type */
#define GT_ERR_VERSION "version"        /* EPROTONOSUPPORT: hello named another protocol */
#define GT_ERR_LIMIT "limit"            /* ENOSPC / EMFILE / EUSERS: a per-client, per-user or daemon limit */
#define GT_ERR_NOT_FOUND "not_found"    /* ENOENT: no such buffer, kernel or event */
#define GT_ERR_ARGS "bad_args"          /* EINVAL: arguments do not match the kernel's signature */
#define GT_ERR_RANGE "bad_range"        /* EINVAL: the range is not a valid launch range */
#define GT_ERR_SCHEDULE "bad_schedule"  /* EINVAL: the schedule text does not parse */
#define GT_ERR_BUFFER "bad_buffer"      /* EINVAL / EPERM: the fd is not a usable sealed memfd */
#define GT_ERR_BUILD "build_failed"     /* ENOEXEC / ETIME: the source did not compile */
#define GT_ERR_LOAD "load_failed"       /* ENOENT / EACCES / EINVAL: the module cannot be used */
#define GT_ERR_LAUNCH "launch_failed"   /* the launch ran and failed */
#define GT_ERR_CANCELLED "cancelled"    /* ECANCELED: an awaited launch failed, or shutdown */
#define GT_ERR_INTERNAL "internal"      /* ENOMEM and the like: the daemon's own trouble */

/* Defaults of the daemon's limits, all configurable (gridtuned --help). */
#define GT_DEFAULT_MAX_FRAME (1u << 20)           /* bytes of JSON in one frame */
#define GT_DEFAULT_MAX_BUFFERS 1024               /* buffers per client */
#define GT_DEFAULT_MAX_BUFFER_BYTES (16ull << 30) /* bytes of buffers per client */
#define GT_DEFAULT_MAX_KERNELS 256                /* kernels per client */
#define GT_DEFAULT_MAX_INFLIGHT 64                /* launches per client not yet completed */
#define GT_DEFAULT_MAX_EVENTS 4096                /* completed events kept per client */
#define GT_DEFAULT_MAX_WAITING 4096               /* wait and report requests per client awaiting launches */
#define GT_DEADLINE_MS_MAX 86400000u /* a launch's deadline: at most a day */
#define GT_MAX_ARGS 12                            /* kernel parameters, as GT_KERNEL allows */
#define GT_MAX_WAIT 64                            /* events in one launch's wait list */

/* The socket's file name inside its directory. */
#define GT_SOCKET_NAME "gridtuned.sock"

#endif
