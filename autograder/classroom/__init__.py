"""The class around grading: collect, feedback and its release, the hub's Formgrader, the
cluster's certificates, the demo class. Imports ``course``, ``sandbox`` and ``grading``."""
