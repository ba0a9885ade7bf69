/* test_module_empty.c: a module built against the header that defines no kernel. */
#include <gridtune/kernel.h>
