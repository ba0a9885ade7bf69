# OpenCL twins: seeds.cl run through the first OpenCL CPU device (pocl's pthread device on
# Debian). seeds.cl is turned into a header at build time and compiled into the library, so the
# binaries never look for it in the source tree.
find_package(OpenCL)
if(NOT OpenCL_FOUND)
  message(FATAL_ERROR "CMake did not find OpenCL (CL/cl.h and libOpenCL, for the pocl peer): ${gt_missing_hint}")
endif()

set(gt_ocl_source ${CMAKE_CURRENT_SOURCE_DIR}/seeds.cl)
set(gt_ocl_generated ${CMAKE_CURRENT_BINARY_DIR}/generated)
add_custom_command(
  OUTPUT ${gt_ocl_generated}/seeds_cl.h
  COMMAND ${CMAKE_COMMAND} -DINPUT=${gt_ocl_source} -DOUTPUT=${gt_ocl_generated}/seeds_cl.h
          -DSYMBOL=gt_seeds_cl_source -P ${CMAKE_CURRENT_SOURCE_DIR}/embed_text.cmake
  DEPENDS ${gt_ocl_source} ${CMAKE_CURRENT_SOURCE_DIR}/embed_text.cmake
  COMMENT "Embedding seeds.cl into seeds_cl.h"
  VERBATIM)

add_library(gt_peers_opencl STATIC ocl_twins.c ${gt_ocl_generated}/seeds_cl.h)
target_include_directories(gt_peers_opencl PRIVATE ${gt_ocl_generated})
# The 1.2 API only: the headers then neither warn about a missing target version nor mark
# clCreateCommandQueue deprecated.
target_compile_definitions(gt_peers_opencl PRIVATE CL_TARGET_OPENCL_VERSION=120)
target_link_libraries(gt_peers_opencl PUBLIC gt_seedbench gt_build_flags PRIVATE OpenCL::OpenCL)

if(BUILD_TESTING)
  # Declared here rather than in tests/, which is added after bench/. One executable, two runs:
  # against the installed ICDs, and (argument no-icd) against an empty vendor directory.
  add_executable(test_peers_opencl ${PROJECT_SOURCE_DIR}/tests/test_peers_opencl.c)
  target_link_libraries(test_peers_opencl PRIVATE gt_peers_opencl gt_build_flags PkgConfig::CMOCKA)
  add_test(NAME test_peers_opencl COMMAND test_peers_opencl)
  add_test(NAME test_peers_opencl_no_icd COMMAND test_peers_opencl no-icd)
  # A first run from an empty pocl kernel cache compiles every twin: seconds, not minutes.
  set_tests_properties(test_peers_opencl test_peers_opencl_no_icd PROPERTIES TIMEOUT 120)
endif()
