/* test_module_plain.c: a shared object that is not a kernel module at all. */
int gt_test_plain_function(void);
int gt_test_plain_function(void)
{
    return 42;
}
