/* huge_pages.h: whether the buffers clients share with gridtuned can get huge pages.
 * A buffer is a memfd, shared memory, which the kernel backs with huge pages only when
 * /sys/kernel/mm/transparent_hugepage/shmem_enabled allows it; both sides map buffers with
 * MADV_HUGEPAGE, so "advise" is enough. Private memory (what an OpenMP program mallocs)
 * follows the other knob, transparent_hugepage/enabled, so on a machine where shared memory
 * gets none, a kernel that walks a large buffer across pages (down its columns) pays a TLB miss
 * per item that the same loop over private memory does not. */
#ifndef GT_HUGE_PAGES_H
#define GT_HUGE_PAGES_H

#include <stdbool.h>
#include <stddef.h>

#define GT_SHMEM_HUGE_PAGES_PATH "/sys/kernel/mm/transparent_hugepage/shmem_enabled"

/* The selected mode of a file such as shmem_enabled ("always within_size [advise] never ...")
 * into mode: "advise", "never", ...; "unknown" when the file cannot be read or names none.
 * Returns true when that mode gives MADV_HUGEPAGE mappings huge pages. */
bool gt_huge_pages_mode(const char *path, char *mode, size_t len);

#endif
