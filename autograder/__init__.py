"""The course's grading side: exercise checks, nbgrader configuration, instructor commands.

``autograder.checks.check`` is what notebook test cells call. Importing this package never
imports torch: only computing references does (see ``autograder.references``).
"""
