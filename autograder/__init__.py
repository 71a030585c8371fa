"""The course's grading side, by role, in the order a class meets it.

``checks``     what notebook test cells call (``autograder.checks.check``): the one import
               path students use
``course/``    the course content: exercise specs and their cases (``exercises``), plain data
               (``plain``), torch references (``references``), the student edition
               (``edition``), the nbgrader course and its release (``pipeline``), the
               self-learner website (``site``)
``sandbox/``   where student code runs: bubblewrap (``bwrap``), the judge inside it
               (``judge``), the read-only runtime it sees (``runtime``), and the cleaning of
               whatever comes out of it before a person reads it (``sanitize``)
``grading/``   a grading run: the trusted side's seed and references (``trusted``), the
               pre-flight rebuild (``rebuild``), the trusted re-check (``recheck``), the
               notebook's own run (``own_run``), one submission (``grade``), the class's run
               (``class_run``) on this machine or a dask cluster (``cluster``)
``classroom/`` the class around it: collecting from the exchange (``collect``), feedback and
               its release (``feedback``, ``safe_comments``), the hub's Formgrader
               (``graders``), the cluster's certificates (``certificates``), the demo class
               (``demo``)
``cli``        the instructor's command line, ``python -m autograder``

Each role imports only the roles listed before it (``tests/test_layering.py``). Importing
this package never imports torch: only computing references does
(``autograder.course.references``).
"""
