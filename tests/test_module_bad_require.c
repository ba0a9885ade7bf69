/* test_module_bad_require.c: a precondition record naming a kernel the module does not have,
 * as a module built by hand (GT_REQUIRE itself would not compile) could carry. */
#include <gridtune/kernel.h>

GT_KERNEL(real)
{
}

static int always(const gt_launch_view *launch)
{
    (void)launch;
    return 1;
}
static const gt_precondition ghost = {"ghost", "1", 0, always};
static const gt_precondition *const ghost_entry __attribute__((used, section("gt_preconditions"),
                                                               aligned(sizeof(void *)))) = &ghost;
