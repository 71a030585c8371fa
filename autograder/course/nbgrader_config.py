"""nbgrader settings for this course, passed to every nbgrader run by ``autograder.cli``.

Directory settings (course root, source, release, gradebook) are given per command on the
command line, because releasing writes into the repository while grading writes into a
workspace the instructor names, outside the tracked tree.
"""

c = get_config()  # noqa: F821 - nbgrader provides get_config when it loads this file

# Notebook cells run in a fresh kernel; a cell that runs longer than this fails.
c.Execute.timeout = 120
c.Execute.kernel_name = "python3"
c.Execute.interrupt_on_timeout = True

# What students see in place of solutions.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.ClearSolutions.enforce_metadata = True

# Hidden tests are delimited by '### BEGIN HIDDEN TESTS' / '### END HIDDEN TESTS'.
c.ClearHiddenTests.enforce_metadata = True

# Grading never reaches out to a shared exchange directory.
c.CourseDirectory.course_id = "reftensor"

# Files never copied into a release or a submission.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback",
                            ".hypothesis", ".DS_Store"]
