"""Capture: the only package that imports torch. Runs variants and writes one result set."""
