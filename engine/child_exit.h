/* child_exit.h: waiting for a child process's exit under a deadline, without reaping it. */
#ifndef GT_CHILD_EXIT_H
#define GT_CHILD_EXIT_H

#include <stdint.h>
#include <sys/types.h>

/* Waits until the child pid has exited or gt_clock_ns() reaches deadline_ns: 0 once it has
 * exited, -ETIME at the deadline, or a negative errno. The child is left unreaped (WNOWAIT), so
 * its pid cannot name another process before the caller's waitpid. The first checks are close
 * together (an exit usually follows the end of a child's output within microseconds), then
 * further apart. (Not a pidfd: valgrind 3.19 does not know pidfd_open.) */
int gt_child_await_exit(pid_t pid, uint64_t deadline_ns);

#endif
