"""soulscope: a terminal dashboard and command line for the memory of AI agents."""

__version__ = "0.1.0"
