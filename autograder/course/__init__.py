"""The course content: exercises, plain data, torch references, the student edition, the
nbgrader course and the website. Imports nothing else of ``autograder`` but ``checks``'s
own helpers."""
