"""Builds the one extension, animcore._core, from the C core and its binding."""
import glob
import os
import shutil
import sys
import sysconfig

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import PlatformError

# Strict C11 without fast-math: the core's isfinite checks must survive.
GCC_FLAGS = [
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Wmissing-prototypes",
    "-ffp-contract=off",
    # errno is never read: with it, GCC keeps a branch to the library call
    # around every sqrt, and loops with one (bounce's friction) do not vectorize
    "-fno-math-errno",
]

NEEDS = """animcore compiles a C extension when it is installed from source, and {what}.
Install a C compiler and the Python headers, then run the install again:
  Debian/Ubuntu:  apt-get install gcc python3-dev
  Fedora/RHEL:    dnf install gcc python3-devel
  Alpine:         apk add build-base python3-dev
  macOS:          xcode-select --install
  Windows:        the "Desktop development with C++" workload of Visual Studio Build Tools"""


def check_toolchain(compiler) -> None:
    """Fail early, saying what to install, when the compiler or Python.h is missing."""
    if compiler.compiler_type != "unix":
        return  # MSVC's own check already names the Build Tools
    program = compiler.compiler_so[0]
    if shutil.which(program) is None:
        raise PlatformError(NEEDS.format(what=f"no C compiler was found ({program!r})"))
    include = sysconfig.get_paths()["include"]
    if not os.path.exists(os.path.join(include, "Python.h")):
        raise PlatformError(NEEDS.format(what=f"the Python headers are missing "
                                              f"(no Python.h in {include})"))


class BuildExt(build_ext):
    def build_extensions(self):
        check_toolchain(self.compiler)
        if self.compiler.compiler_type == "unix":
            # NumPy's headers are not -Wpedantic clean: include them as system headers.
            flags = GCC_FLAGS + ["-isystem", numpy.get_include()]
            flags += ["-Werror"] if os.environ.get("CI") else []
            # Release builds are stripped of debug info (`build_ext --debug` keeps it).
            link = [] if self.debug else (["-Wl,-S"] if sys.platform == "darwin" else ["-s"])
        else:  # MSVC: precise floating point is its default
            flags = ["/std:c11", "/W3", "/fp:precise", "/I" + numpy.get_include()]
            link = []
        for ext in self.extensions:
            ext.extra_compile_args = flags
            ext.extra_link_args = link
        super().build_extensions()


core = Extension(
    "animcore._core",
    sources=sorted(glob.glob("csrc/*.c")) + sorted(glob.glob("csrc/python/*.c")),
    include_dirs=["csrc"],
    depends=sorted(glob.glob("csrc/*.h")) + sorted(glob.glob("csrc/python/*.h")),
)

setup(ext_modules=[core], cmdclass={"build_ext": BuildExt})
