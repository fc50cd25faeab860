"""Builds the one extension, animcore._core, from the C core and its binding."""
import glob
import os

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# Strict C11 without fast-math: the core's isfinite checks must survive.
GCC_FLAGS = [
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Wmissing-prototypes",
    "-ffp-contract=off",
]


class BuildExt(build_ext):
    def build_extensions(self):
        if self.compiler.compiler_type == "unix":
            # NumPy's headers are not -Wpedantic clean: include them as system headers.
            flags = GCC_FLAGS + ["-isystem", numpy.get_include()]
            flags += ["-Werror"] if os.environ.get("CI") else []
        else:  # MSVC: precise floating point is its default
            flags = ["/std:c11", "/W3", "/fp:precise", "/I" + numpy.get_include()]
        for ext in self.extensions:
            ext.extra_compile_args = flags
        super().build_extensions()


core = Extension(
    "animcore._core",
    sources=sorted(glob.glob("csrc/*.c")) + sorted(glob.glob("csrc/python/*.c")),
    include_dirs=["csrc"],
    depends=sorted(glob.glob("csrc/*.h")) + sorted(glob.glob("csrc/python/*.h")),
)

setup(ext_modules=[core], cmdclass={"build_ext": BuildExt})
