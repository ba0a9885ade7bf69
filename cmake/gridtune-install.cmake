# gridtune-install.cmake: the files that make gridtune installable, besides the binaries:
# libgridtune's pkg-config file and gridtuned's systemd units (a per-user one and a system one).
# Included at the end of the top-level CMakeLists.txt. Each template is configured twice: into
# the build tree when configuring, to read; and again when installing, because
# `cmake --install --prefix DIR` changes the prefix after configuring, and the paths inside
# the files (ExecStart=, libdir=) must be those of the prefix actually installed to.
include_guard(GLOBAL)
include(GNUInstallDirs)

set(GRIDTUNE_SYSTEMD_USER_UNIT_DIR "lib/systemd/user" CACHE PATH
    "Where the systemd user unit gridtuned.service goes; relative to the install prefix unless absolute")
set(GRIDTUNE_SYSTEMD_SYSTEM_UNIT_DIR "lib/systemd/system" CACHE PATH
    "Where the systemd system unit gridtuned.service goes; relative to the install prefix unless absolute")

# The templates are found from this file, so a scratch project can include it to test it.
cmake_path(GET CMAKE_CURRENT_LIST_DIR PARENT_PATH gt_install_src)
# template (relative to the source tree) -> installed file name, and where it goes
set(gt_install_templates
    client/gridtune.pc.in "gridtune.pc" "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
    daemon/systemd/gridtuned.service.in "gridtuned.service" "${GRIDTUNE_SYSTEMD_USER_UNIT_DIR}"
    daemon/systemd/gridtuned-system.service.in "gridtuned.service" "${GRIDTUNE_SYSTEMD_SYSTEM_UNIT_DIR}")

# The configure-time copies, under build/packaging/<destination>/.
set(gt_install_out ${PROJECT_BINARY_DIR}/packaging)
set(gt_install_rules "")
while(gt_install_templates)
  list(POP_FRONT gt_install_templates gt_template gt_name gt_dest)
  configure_file(${gt_install_src}/${gt_template} ${gt_install_out}/${gt_dest}/${gt_name} @ONLY)
  string(APPEND gt_install_rules
         "  gt_install_configured(\"${gt_install_src}/${gt_template}\" \"${gt_name}\" \"${gt_dest}\")\n")
endwhile()

# The install-time step. Runs in cmake_install.cmake, where CMAKE_INSTALL_PREFIX is the prefix
# being installed to; the @...@ below are filled in now, the ${...} when installing.
string(CONFIGURE [=[
block(PROPAGATE CMAKE_INSTALL_MANIFEST_FILES)
  set(PROJECT_VERSION "@PROJECT_VERSION@")
  set(CMAKE_INSTALL_BINDIR "@CMAKE_INSTALL_BINDIR@")
  set(CMAKE_INSTALL_LIBDIR "@CMAKE_INSTALL_LIBDIR@")
  set(CMAKE_INSTALL_INCLUDEDIR "@CMAKE_INSTALL_INCLUDEDIR@")
  set(CMAKE_INSTALL_DOCDIR "@CMAKE_INSTALL_DOCDIR@")
  foreach(dir BINDIR LIBDIR INCLUDEDIR DOCDIR)
    if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
      set(CMAKE_INSTALL_FULL_${dir} "${CMAKE_INSTALL_${dir}}")
    else()
      set(CMAKE_INSTALL_FULL_${dir} "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_${dir}}")
    endif()
  endforeach()
  # A macro, not a function, and a block that propagates the manifest: file(INSTALL) records
  # what it installed in CMAKE_INSTALL_MANIFEST_FILES of the current scope.
  macro(gt_install_configured template name dest)
    set(staged "@gt_install_out@/install/${dest}/${name}")
    configure_file("${template}" "${staged}" @ONLY)
    set(full_dest "${dest}")
    if(NOT IS_ABSOLUTE "${full_dest}")
      set(full_dest "${CMAKE_INSTALL_PREFIX}/${dest}")
    endif()
    file(INSTALL DESTINATION "${full_dest}" TYPE FILE FILES "${staged}")
  endmacro()
@gt_install_rules@endblock()
]=] gt_install_code @ONLY)
install(CODE "${gt_install_code}")
