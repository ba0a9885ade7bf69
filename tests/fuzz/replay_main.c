/* replay_main.c: runs a fuzz target's LLVMFuzzerTestOneInput over every file of the
 * directories (or the files) named on the command line, so that ctest replays the corpus in
 * an ordinary build, with gcc, sanitizers or valgrind. Fails when it found no input at all,
 * so a corpus that went missing cannot pass for a clean one. */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* Each input in a buffer of exactly its size, so that a read past its end is caught. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct stat st;
    uint8_t *data = fstat(fileno(f), &st) == 0 ? malloc(st.st_size ? (size_t)st.st_size : 1) : NULL;
    size_t n = data ? fread(data, 1, (size_t)st.st_size, f) : 0;
    int bad = !data || n != (size_t)st.st_size || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(data);
        return -1;
    }
    LLVMFuzzerTestOneInput(data, n);
    free(data);
    return 0;
}

static int skip_hidden(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* Returns the inputs replayed, or -1. Files in name order, so a run is repeatable. */
static long replay_dir(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, skip_hidden, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s: %s\n", dir, strerror(errno));
        return -1;
    }
    long done = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (done >= 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            done = replay_file(path) == 0 ? done + 1 : -1;
        free(names[i]);
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        long n = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? replay_dir(argv[i])
                                                           : replay_file(argv[i]) == 0 ? 1 : -1;
        if (n < 0)
            return 1;
        printf("replayed %ld input%s from %s\n", n, n == 1 ? "" : "s", argv[i]);
        total += n;
    }
    if (total == 0) {
        fprintf(stderr, "usage: %s DIR|FILE...: no inputs replayed\n", argv[0]);
        return 1;
    }
    return 0;
}
