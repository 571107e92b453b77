"""The `mcbot` command line: argument parsing, one module per command family, and the
table that maps errors to exit codes.
"""
