"""The package list, which pyproject.toml cannot say: every package under soulscope/ plus the two
top-level folders mapped into the package (styles/ and state/, see [tool.setuptools.package-dir])."""

from setuptools import find_namespace_packages, setup

packages = find_namespace_packages(include=["soulscope", "soulscope.*"], exclude=["*__pycache__"])
setup(packages=[*packages, "soulscope.styles", "soulscope.state"])
