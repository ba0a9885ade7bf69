/* test_huge_pages.c: reading the shared-memory huge-page mode from files shaped like
 * /sys/kernel/mm/transparent_hugepage/shmem_enabled, and what each mode means for buffers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "daemon/huge_pages.h"
#include "fixtures/temp_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool mode_of(const char *dir, const char *text, char *mode, size_t len)
{
    char path[4096 + sizeof "/shmem_enabled"];
    snprintf(path, sizeof path, "%s/shmem_enabled", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return gt_huge_pages_mode(path, mode, len);
}

static void reads_the_bracketed_mode(void **state)
{
    (void)state;
    char dir[4096];
    assert_int_equal(temp_dir_make(dir, sizeof dir, "huge_pages"), 0);
    char mode[24];
    assert_true(mode_of(dir, "always within_size [advise] never deny force\n", mode, sizeof mode));
    assert_string_equal(mode, "advise");
    assert_true(mode_of(dir, "[always] within_size advise never deny force\n", mode, sizeof mode));
    assert_string_equal(mode, "always");
    assert_true(mode_of(dir, "always [within_size] advise never\n", mode, sizeof mode));
    assert_false(mode_of(dir, "always within_size advise [never] deny force\n", mode, sizeof mode));
    assert_string_equal(mode, "never");
    assert_false(mode_of(dir, "always within_size advise never [deny] force\n", mode, sizeof mode));
    assert_string_equal(mode, "deny");
    temp_dir_remove(dir);
}

static void unreadable_or_odd_files_are_unknown(void **state)
{
    (void)state;
    char dir[4096];
    assert_int_equal(temp_dir_make(dir, sizeof dir, "huge_pages"), 0);
    char mode[24] = "x";
    assert_false(gt_huge_pages_mode("/nonexistent/shmem_enabled", mode, sizeof mode));
    assert_string_equal(mode, "unknown");
    assert_false(mode_of(dir, "", mode, sizeof mode));
    assert_string_equal(mode, "unknown");
    assert_false(mode_of(dir, "always [] never", mode, sizeof mode));
    assert_string_equal(mode, "unknown");
    assert_false(mode_of(dir, "always [advise", mode, sizeof mode));
    assert_string_equal(mode, "unknown");
    /* a mode too long for the caller's buffer is cut, never overrun, and does not count */
    char small[4];
    assert_false(mode_of(dir, "[within_size]", small, sizeof small));
    assert_string_equal(small, "wit");
    temp_dir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_the_bracketed_mode),
        cmocka_unit_test(unreadable_or_odd_files_are_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
