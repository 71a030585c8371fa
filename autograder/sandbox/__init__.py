"""Where student code runs (``bwrap``, ``judge``, ``runtime``) and the cleaning of what comes
out of it (``sanitize``). Imports only ``autograder.course``."""
