# OpenMP twins of the seed kernels (omp_twins.c) and the memcpy bandwidth probe (memcpy_probe.c):
# the hand-written OpenMP peer gridtune is measured against, and its test.
find_package(OpenMP REQUIRED)
add_library(gt_peers_omp STATIC omp_twins.c memcpy_probe.c)
# OpenMP is PUBLIC: whoever links this static library needs libgomp too.
target_link_libraries(gt_peers_omp PUBLIC gt_seedbench gt_build_flags OpenMP::OpenMP_C)
# -O3 as for the seed kernels (kernels/CMakeLists.txt), so neither side is compared at a
# different optimisation level (gcc vectorises only at -O3); and for the same vector units when
# GRIDTUNE_NATIVE builds the seeds for this CPU.
target_compile_options(gt_peers_omp PRIVATE -O3)
if(GRIDTUNE_NATIVE AND GT_CC_MARCH_NATIVE)
  target_compile_options(gt_peers_omp PRIVATE -march=native)
endif()

# gridtune-copy-limits: what a store loop, streaming stores, row memcpys and one memcpy reach on
# a matrix copy, beside each other: the ceiling a copy kernel can hope for.
add_executable(gridtune-copy-limits copy_limits.c)
target_link_libraries(gridtune-copy-limits PRIVATE gt_peers_omp gt_tuner)
target_compile_options(gridtune-copy-limits PRIVATE -O3)
install(TARGETS gridtune-copy-limits RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

if(BUILD_TESTING)
  # As gt_add_test in tests/CMakeLists.txt, which is defined after this directory is read.
  add_executable(test_peers_omp ${PROJECT_SOURCE_DIR}/tests/test_peers_omp.c)
  target_link_libraries(test_peers_omp PRIVATE gt_peers_omp gt_build_flags PkgConfig::CMOCKA)
  add_test(NAME test_peers_omp COMMAND test_peers_omp)
  set_tests_properties(test_peers_omp PROPERTIES TIMEOUT 600)
endif()
