"""pylon: git-centric workspace and memory toolkit for the command line.

Keep this module import-free: every command pays for what is imported here.
"""

__version__ = "0.1.0"
