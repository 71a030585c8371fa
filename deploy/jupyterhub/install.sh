#!/bin/bash
# Install the course's JupyterHub environment, as root:
#   deploy/jupyterhub/install.sh [VENV]          (VENV default /opt/reftensor/venv)
#
# - a venv from Debian's /usr/bin/python3 under a system path, world-readable and
#   world-executable (every student's server runs this Python as that student: a venv on a
#   Python under /root cannot be executed by them);
# - the course's exact pins (requirements.txt: torch's CPU wheel, JupyterLab, nbgrader) and
#   jupyterhub==$JUPYTERHUB_VERSION;
# - the students' release of the course package (deploy/jupyterhub/student_package.py: the
#   student edition of reftensor and autograder.checks; never solutions/, never this checkout);
# - configurable-http-proxy@$CHP_VERSION from npm (needs node and npm: apt-get install nodejs npm).
#
# A venv whose recorded pins match is reused (only the course package is reinstalled), so a
# second run takes seconds. Run it again after `python -m autograder release --publish CH`.
set -euo pipefail
unset PYTHONPATH PYTHONHOME  # the venv must not see the caller's modules

VENV=${1:-${REFTENSOR_VENV:-/opt/reftensor/venv}}
JUPYTERHUB_VERSION=5.4.2
CHP_VERSION=5.3.0
PYTHON=/usr/bin/python3
REPO=$(cd "$(dirname "$0")/../.." && pwd)

[ "$(id -u)" = 0 ] || { echo "install.sh: run as root" >&2; exit 1; }
[ -x "$PYTHON" ] || { echo "install.sh: $PYTHON is missing (apt-get install python3 python3-venv)" >&2; exit 1; }
case "$VENV" in
  /root/*|/home/*) echo "install.sh: $VENV is under a home folder; students could not run it" >&2; exit 1;;
  /*) ;;
  *) echo "install.sh: VENV must be an absolute path" >&2; exit 1;;
esac
umask 022

# 1. The venv and the pins. The stamp records what was installed; equal stamp = reuse.
stamp="$VENV/.reftensor-pins"
want="$(sha256sum "$REPO/requirements.txt" | cut -d' ' -f1) jupyterhub==$JUPYTERHUB_VERSION $($PYTHON -c 'import sys; print(sys.version.split()[0])')"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$VENV/bin/jupyterhub" ]; then
  echo "install.sh: reusing $VENV (pins match)"
else
  if [ ! -x "$VENV/bin/python" ] || [ "$(readlink -f "$VENV/bin/python")" != "$(readlink -f "$PYTHON")" ]; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
  fi
  rm -f "$stamp"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
      -r "$REPO/requirements.txt" "jupyterhub==$JUPYTERHUB_VERSION"
  # 1.2 s of import time in every nbformat user, for a check no course schema has (Makefile)
  "$VENV/bin/pip" uninstall --quiet --disable-pip-version-check --yes rfc3987-syntax
  echo "$want" > "$stamp"
fi

# 2. The students' release of the course package (not an editable install of this checkout).
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
"$VENV/bin/python" "$REPO/deploy/jupyterhub/student_package.py" "$stage/pkg"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps --no-build-isolation \
    --force-reinstall "$stage/pkg"
rm -rf "$stage/pkg/build"
# nbgrader's Submit with private submission folders (named in setup_course.sh's settings),
# and the Formgrader service's refusal of its Autograde button (jupyterhub_config.py)
purelib=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
install -m 644 "$REPO/deploy/jupyterhub/reftensor_hub_exchange.py" "$purelib/"
install -m 644 "$REPO/deploy/jupyterhub/reftensor_formgrader_guard.py" "$purelib/"

# 3. nbgrader's instructor parts off for everyone's JupyterLab (students' Nbgrader menu then
#    lists only the Assignments tab and Validate): the Formgrader, Course List and Create
#    Assignment lab plugins, and the formgrader and course_list server extensions; and
#    JupyterLab's offer to fetch news from jupyter.org. The
#    course's Formgrader service turns its own extension back on (jupyterhub_config.py), and
#    loads Formgrader's pages' MathJax from the server itself with the template folder below.
install -d -m 755 "$VENV/etc/jupyter/labconfig" "$VENV/etc/jupyter/jupyter_server_config.d" \
    "$VENV/share/reftensor"
cat > "$VENV/etc/jupyter/labconfig/page_config.json" <<'JSON'
{
  "disabledExtensions": {
    "@jupyter/nbgrader:formgrader": true,
    "@jupyter/nbgrader:course-list": true,
    "@jupyter/nbgrader:create-assignment": true,
    "@jupyterlab/apputils-extension:announcements": true
  }
}
JSON
cat > "$VENV/etc/jupyter/jupyter_server_config.d/zz-reftensor-students.json" <<'JSON'
{
  "ServerApp": {
    "jpserver_extensions": {
      "nbgrader.server_extensions.formgrader": false,
      "nbgrader.server_extensions.course_list": false
    }
  }
}
JSON
rm -rf "$VENV/share/reftensor/formgrader"
cp -r "$REPO/autograder/classroom/formgrader" "$VENV/share/reftensor/formgrader"

# 4. The proxy.
if [ "$(configurable-http-proxy --version 2>/dev/null)" != "$CHP_VERSION" ]; then
  command -v npm >/dev/null || { echo "install.sh: npm is missing (apt-get install nodejs npm)" >&2; exit 1; }
  npm install -g --silent "configurable-http-proxy@$CHP_VERSION"
fi

# 5. Everyone may read and run the venv; only root may change it.
chown -R root:root "$VENV"
chmod -R u+rwX,go+rX,go-w "$VENV"
d=$(dirname "$VENV")
while [ "$d" != / ]; do chmod o+x "$d"; d=$(dirname "$d"); done

# 6. What the notebooks import, as a user who is not root.
runuser -u nobody -- env -i HOME=/tmp "$VENV/bin/python" -c \
  'import reftensor, torch, reftensor_hub_exchange, reftensor_formgrader_guard; from autograder.checks import check; print("students import reftensor", torch.__version__)'
echo "install.sh: $VENV ready (jupyterhub $("$VENV/bin/jupyterhub" --version), configurable-http-proxy $(configurable-http-proxy --version))"
