"""Tooling around the daemon: the soak and its chaos and report, the benchmarks, the session
recorder and the manual checks. Nothing the daemon itself needs at run time.
"""
