/* machine.c: the identities that key the wisdom: this machine's signature and a kernel's code.
 * Both are 64-bit FNV-1a hashes, printed as 16 hex digits. FNV is not collision-proof against
 * an adversary, but the wisdom only needs to tell honest machines and builds apart, and it is
 * small, fast and stable across releases, which a cached decision needs. */
#include "machine.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FNV_PRIME 0x100000001b3ULL
#define CPUINFO_PATH "/proc/cpuinfo"
#define CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"
/* index0..indexN: L1d, L1i, L2, L3 and the odd extra level; stop at the first gap. */
#define CACHE_INDEX_MAX 16
#define MODULE_CHUNK 65536

uint64_t gt_hash_bytes(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV_PRIME;
    }
    return h;
}

void gt_hash_format(uint64_t h, char out[GT_HASH_TEXT_MAX])
{
    snprintf(out, GT_HASH_TEXT_MAX, "%016" PRIx64, h);
}

static uint64_t hash_string(uint64_t h, const char *s)
{
    return gt_hash_bytes(h, s, strlen(s) + 1); /* the terminator separates fields */
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    size_t lead = strspn(s, " \t");
    memmove(s, s + lead, n - lead + 1);
}

/* The first CPU's "model name" line; "" when there is none (some architectures lack it). */
static void read_cpu_model(char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(CPUINFO_PATH, "re");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (colon) {
            snprintf(out, len, "%s", colon + 1);
            trim(out);
        }
        break;
    }
    fclose(f);
}

/* The first line of a small sysfs file, without its newline; false when unreadable. */
static bool read_line(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (ok)
        trim(out);
    return ok;
}

/* CPUs in the affinity mask; the mask is grown for machines with more CPUs than cpu_set_t. */
static unsigned affinity_cpus(void)
{
    for (size_t ncpus = CPU_SETSIZE; ncpus <= (1u << 20); ncpus *= 2) {
        cpu_set_t *set = CPU_ALLOC(ncpus);
        if (!set)
            return 0;
        size_t size = CPU_ALLOC_SIZE(ncpus);
        CPU_ZERO_S(size, set);
        int rc = sched_getaffinity(0, size, set);
        unsigned n = rc == 0 ? (unsigned)CPU_COUNT_S(size, set) : 0;
        int saved = errno;
        CPU_FREE(set);
        if (rc == 0)
            return n;
        if (saved != EINVAL)
            return 0;
    }
    return 0;
}

void gt_machine_signature(char out[GT_HASH_TEXT_MAX], char *desc, size_t desclen)
{
    uint64_t h = GT_HASH_SEED;
    char model[256];
    read_cpu_model(model, sizeof model);
    h = hash_string(gt_hash_bytes(h, "model", 5), model);

    for (unsigned i = 0; i < CACHE_INDEX_MAX; i++) {
        char path[128], size[64];
        snprintf(path, sizeof path, CACHE_DIR "/index%u/size", i);
        if (!read_line(path, size, sizeof size))
            break;
        h = hash_string(gt_hash_bytes(h, "cache", 5), size);
    }

    unsigned cpus = affinity_cpus();
    char count[32];
    snprintf(count, sizeof count, "%u", cpus);
    h = hash_string(gt_hash_bytes(h, "cpus", 4), count);

    gt_hash_format(h, out);
    if (desc && desclen)
        snprintf(desc, desclen, "%s, %u CPU%s", model[0] ? model : "unknown CPU", cpus, cpus == 1 ? "" : "s");
}

int gt_kernel_identity(const char *module_path, const char *kernel, char out[GT_HASH_TEXT_MAX], char *err,
                       size_t errlen)
{
    if (!kernel || !*kernel) {
        snprintf(err, errlen, "no kernel name given for the identity of module %s", module_path);
        return -EINVAL;
    }
    /* Without blocking, and only a regular file, read to the size it had when opened: the
       module's own constructors ran before this, and may have put a FIFO in its place or keep
       writing to it. */
    int fd = open(module_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot open kernel module %s: %s", module_path, strerror(e));
        return -e;
    }
    struct stat st;
    int e = fstat(fd, &st) != 0 ? errno : 0;
    if (e || !S_ISREG(st.st_mode)) {
        close(fd);
        if (e)
            snprintf(err, errlen, "cannot read kernel module %s: %s", module_path, strerror(e));
        else
            snprintf(err, errlen, "kernel module %s is not a regular file (any more)", module_path);
        return e ? -e : -EINVAL;
    }
    off_t left = st.st_size;
    unsigned char *buf = malloc(MODULE_CHUNK);
    if (!buf) {
        close(fd);
        snprintf(err, errlen, "out of memory hashing kernel module %s", module_path);
        return -ENOMEM;
    }
    uint64_t h = GT_HASH_SEED;
    int rc = 0;
    while (left > 0) {
        ssize_t n = read(fd, buf, left < MODULE_CHUNK ? (size_t)left : MODULE_CHUNK);
        if (n > 0) {
            h = gt_hash_bytes(h, buf, (size_t)n);
            left -= n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            snprintf(err, errlen, "cannot read kernel module %s: %s", module_path, strerror(errno));
        }
        break;
    }
    free(buf);
    close(fd);
    if (rc)
        return rc;
    /* Then a NUL and the name, so that the kernels of one module have distinct identities. */
    h = gt_hash_bytes(gt_hash_bytes(h, "", 1), kernel, strlen(kernel));
    gt_hash_format(h, out);
    return 0;
}
