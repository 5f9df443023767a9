"""Three applications built from chains of ``@hls.kernel`` kernels (issue 12), after RAPID
(Ebrahimi et al., IEEE TCAD 42(3), 2023): image processing (:mod:`.image`), Pan-Tompkins
QRS detection (:mod:`.ecg`) and an alpha-beta tracker (:mod:`.tracking`).  Quality metrics
are in :mod:`.quality`; ``python benchmarks/apps.py`` measures them end to end.
"""
