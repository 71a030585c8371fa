"""JupyterHub configuration for a reftensor class on one machine.

    jupyterhub -f deploy/jupyterhub/jupyterhub_config.py      (as root, in the state folder)

Read from ``$REFTENSOR_HUB_ETC/course.json`` (default ``/etc/reftensor-hub``, written by
``setup_course.sh``): the course id, the venv, the course's users and its graders. Environment:

    REFTENSOR_HUB_IP          where the hub's proxy listens (default 127.0.0.1: put a TLS
                              reverse proxy in front of it, or set 0.0.0.0 behind a firewall)
    REFTENSOR_HUB_PORT        its port (default 8000)
    REFTENSOR_HUB_API_PORT    the hub's internal API port (default 8081)
    REFTENSOR_PROXY_API_PORT  the proxy's API port (default 8001)
    REFTENSOR_GRADER_PORT     the Formgrader service's port (default 9999)
    REFTENSOR_HUB_STATE       the hub's database and cookie secret (default: the current folder)

- Users log in with their Linux password (PAM); only the course's students, instructor and
  graders may. Each one's JupyterLab runs as that Linux user (LocalProcessSpawner), from the
  course's venv, and opens on /lab.
- Formgrader is a hub-managed service named after the course, run as the course's grader
  account: ``/services/<course>/formgrader``, opened in a browser tab of its own. Only the
  graders' group may open it. It is not shown inside JupyterLab: JupyterHub >= 4.1 forbids
  framing single-user pages (``frame-ancestors 'none'``), and nbgrader's maintainers declined to
  loosen that (nbgrader #1870, PR #1947); this configuration does not loosen it either.
"""

import json
import os
import pwd

c = get_config()  # noqa: F821 - JupyterHub provides get_config when it loads this file

ETC = os.environ.get("REFTENSOR_HUB_ETC", "/etc/reftensor-hub")
with open(os.path.join(ETC, "course.json"), encoding="utf-8") as f:
    course = json.load(f)
COURSE = course["course"]
VENV = course["venv"]
PATH = os.pathsep.join([os.path.join(VENV, "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
STATE = os.environ.get("REFTENSOR_HUB_STATE", os.getcwd())

# Where it listens: loopback by default; every port can be chosen (a test picks free ones).
c.JupyterHub.bind_url = "http://{}:{}".format(os.environ.get("REFTENSOR_HUB_IP", "127.0.0.1"),
                                              int(os.environ.get("REFTENSOR_HUB_PORT", "8000")))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("REFTENSOR_HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{}".format(
    int(os.environ.get("REFTENSOR_PROXY_API_PORT", "8001")))
c.JupyterHub.cookie_secret_file = os.path.join(STATE, "jupyterhub_cookie_secret")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(STATE, "jupyterhub.sqlite")
c.ConfigurableHTTPProxy.pid_file = os.path.join(STATE, "jupyterhub-proxy.pid")

# Who may log in: the course's Linux users, with their Linux passwords.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = ({course["instructor"]} | set(course["students"])
                                 | set(course["graders"]))
c.Authenticator.admin_users = set(course.get("admins", []))  # none by default

# Each user's JupyterLab, as that user, from the course's venv.
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [os.path.join(VENV, "bin", "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.http_timeout = 120  # a first start on a busy machine takes a while
c.Spawner.start_timeout = 120


def _home(spawner):
    return pwd.getpwnam(spawner.user.name).pw_dir


c.Spawner.environment = {
    # nbgrader runs alembic and kernels by PATH
    "PATH": PATH,
    # nbgrader fetches a chapter into ~/<chapter>/; reftensor reads a student's earlier
    # chapters' answers from there (reftensor/pieces.py), not from beside the installed package
    "REFTENSOR_NOTEBOOKS": _home,
}

# The course's graders, and Formgrader as a service only they can open.
GRADERS_GROUP = course["graders_group"]
c.JupyterHub.load_groups = {GRADERS_GROUP: {"users": sorted(course["graders"])}}
c.JupyterHub.load_roles = [{
    "name": GRADERS_GROUP,
    "description": f"open the Formgrader of course {COURSE}",
    "groups": [GRADERS_GROUP],
    "scopes": [f"access:services!service={COURSE}", "list:services",
               f"read:services!service={COURSE}"],
}]
c.JupyterHub.services = [{
    "name": COURSE,
    "url": "http://127.0.0.1:{}".format(int(os.environ.get("REFTENSOR_GRADER_PORT", "9999"))),
    # nbgrader's formgrader extension is off for everyone else (install.sh); on here, with
    # its Autograde button answered by a refusal (reftensor_formgrader_guard.py)
    "command": [os.path.join(VENV, "bin", "jupyterhub-singleuser"),
                "--ServerApp.jpserver_extensions=nbgrader.server_extensions.formgrader=True",
                "--ServerApp.jpserver_extensions=reftensor_formgrader_guard=True"],
    "user": course["grader_account"],
    "cwd": course["grader_course_dir"],  # nbgrader finds the course from here
    # JUPYTER_PATH: Formgrader's pages load MathJax from this server (install.sh)
    "environment": {"JUPYTERHUB_DEFAULT_URL": "/formgrader", "PATH": PATH,
                    "JUPYTER_PATH": os.path.join(VENV, "share", "reftensor", "formgrader")},
    "oauth_no_confirm": True,  # the hub's own service: no consent page for graders
}]
