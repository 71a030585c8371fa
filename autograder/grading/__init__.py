"""A grading run: pre-flight, trusted re-check, the notebook's own run, one submission, the
class's run, on this machine or a dask cluster. Imports ``course`` and ``sandbox``."""
