"""The synthesis result cache of the ``units`` commands, checked before they synthesise anything."""

from __future__ import annotations

from pathlib import Path

import artefacts
from approx_units import synth

__all__ = ["open_cache"]


def open_cache(cache_dir: str | None) -> synth.ResultCache:
    """The synthesis cache of ``--cache-dir`` (or the default one), checked before any synthesis.

    Raises
    ------
    artefacts.DestinationError
        ``--cache-dir`` (or the default cache) is a file or cannot be written;
        the message starts with the path as the user gave it.
    """
    if cache_dir is not None:
        # The user's own path first, so that the message starts with what they typed.
        artefacts.check_directory_destination(cache_dir)
    cache = synth.ResultCache(Path(cache_dir) / "synth" if cache_dir is not None else None)
    cache.check()
    return cache
