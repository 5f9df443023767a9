"""The ``axhls`` command line: ``axhls compile|report|sim|check|units ...``.

This package is the command line only. It imports the libraries, in one
direction: ``axhls -> sim -> hls`` and ``axhls -> approx_units``; no library
imports it. See ``docs/architecture.md`` for the module map.
"""
