# The Debian package, made by CPack from what `cmake --install` installs:
#   cmake --build build --target kprobe-probe kpp_demo kpp_man_page
#   (cd build && cpack -G DEB -C Release)    # -> build/kprobe-probe_<version>_amd64.deb
# -C Release strips the program as a Release install does (see CMakeLists.txt),
# whatever type the build is: the already-built binary is packaged, not a new build.
# Its runtime dependencies are what dpkg-shlibdeps reads from the installed ELF
# files (libc6, zlib1g, libzstd1, libtracefs1, libtraceevent1,
# libtracecmd1, libncursesw6, libtinfo6 on Debian 12).
# cpack (and `make install`) install what is built, without building the
# `all` target first: that would compile every test and benchmark, which a
# package does not hold. Build the three targets above first.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kprobe-probe)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "define kprobe and uprobe events from source lines and variables, and watch them fire")
set(CPACK_PACKAGE_DESCRIPTION
    "kprobe-probe reads a program's or the kernel's DWARF to turn a source line and the variables named \
there into a kprobe or uprobe definition (perf probe's syntax), installs it through tracefs, and shows \
what the probes see: decoded lines, JSON lines, a live terminal view, or a trace.dat for trace-cmd and \
KernelShark.")
set(KPP_PACKAGE_MAINTAINER "kprobe-probe developers <root@localhost>" CACHE STRING
    "Maintainer field of the .deb")
set(CPACK_PACKAGE_CONTACT ${KPP_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "trace-cmd, kernelshark, bash-completion")
# Loaded only when DEBUGINFOD_URLS asks for a fetch (libcurl: dwarf/source/http_download.cpp), and
# when `export` serves its metrics (src/export/metrics_server.cpp): not NEEDED,
# so shlibdeps cannot see them.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcurl4, libmicrohttpd12")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# One package of the whole install, without the per-component split.
set(CPACK_DEB_COMPONENT_INSTALL OFF)
include(CPack)
