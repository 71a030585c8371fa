"""nbgrader's Submit for this course's hub: a submission folder that only its student (and
root) can open.

nbgrader 0.9.6's ``ExchangeSubmit`` makes each inbound submission folder mode 0777 ("so the
instructor can delete later"), hidden only by its name (a time and a random suffix): anyone
who learns the name can replace the notebook in it, or read its ``submission_secret.txt``
and with it fetch the student's feedback. On this course's hub nobody but root reads the
inbound folder (``python -m autograder collect``), so the folder is made 0700 as soon as
nbgrader has written it. ``install.sh`` puts this module in the course's venv and
``setup_course.sh`` names it in the site-wide nbgrader settings
(``c.ExchangeFactory.submit``).
"""

import os

from nbgrader.exchange.default.submit import ExchangeSubmit


class PrivateSubmit(ExchangeSubmit):
    """``ExchangeSubmit``, then the new inbound folder made 0700."""

    def copy_files(self) -> None:
        super().copy_files()
        os.chmod(os.path.join(self.inbound_path, self.assignment_filename), 0o700)
