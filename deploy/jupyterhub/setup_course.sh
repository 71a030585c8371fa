#!/bin/bash
# Set a course up on the hub machine, as root (after install.sh). Settings, by environment:
#
#   COURSE=reftensor            nbgrader course id; also the Formgrader service's name
#   INSTRUCTOR=instructor       releases chapters; owns the course's exchange folders
#   STUDENTS="ada bob"          or STUDENTS_FILE=/path (one user name a line)
#   GRADERS="$INSTRUCTOR"       who may open Formgrader (/services/$COURSE/formgrader)
#   CHAPTERS="ch01_storage ..." chapters copied from solutions/ into the course's source/
#                               (default: every chapter folder of solutions/)
#   VENV=/opt/reftensor/venv    from install.sh
#   EXCHANGE=/srv/nbgrader/exchange
#   HUB_ETC=/etc/reftensor-hub  where course.json (read by jupyterhub_config.py) is written
#   GRADING=/var/lib/reftensor/$COURSE   root's folder for collected submissions and grading
#                               workspaces (made 0700: grades.csv and feedback are in there)
#   CREATE_USERS=0              1: create missing Linux users (useradd -m, password locked:
#                               set one with chpasswd or use your own accounts)
#
# What it does (run it again after adding students: it changes nothing else):
# - every course user's home 0700 (Debian's useradd makes 0755: classmates could read it);
# - a grader account grader-$COURSE (password locked) whose single-user server is the
#   course's Formgrader service, with its own nbgrader course folder, 0700;
# - the exchange root, root's and 1777 (nbgrader's release insists on 777; the sticky bit keeps
#   anyone from renaming or removing a folder someone else made in it), and
#   $EXCHANGE/$COURSE/{outbound,inbound} pre-created, owned by the instructor (inbound 3733:
#   students can write into it, not list it, and, with the sticky bit, not rename or remove
#   a classmate's submission in it), so no student can squat this course's folders;
# - the instructor's course folder ~$INSTRUCTOR/$COURSE: source/ from solutions/, the
#   course's nbgrader settings, 0700 (the solutions and the gradebook's hidden tests are in it);
# - root's grading folder $GRADING, 0700 (collect --into $GRADING/inbox/<chapter>,
#   grade --workspace $GRADING/workspace);
# - the site-wide nbgrader settings (Exchange.root, course_id) in $VENV/etc/jupyter;
# - $HUB_ETC/course.json: the course, its users and its graders' group for the hub.
set -euo pipefail

COURSE=${COURSE:-reftensor}
INSTRUCTOR=${INSTRUCTOR:-instructor}
GRADERS=${GRADERS:-$INSTRUCTOR}
VENV=${VENV:-/opt/reftensor/venv}
EXCHANGE=${EXCHANGE:-/srv/nbgrader/exchange}
HUB_ETC=${HUB_ETC:-/etc/reftensor-hub}
GRADING=${GRADING:-/var/lib/reftensor/$COURSE}
CREATE_USERS=${CREATE_USERS:-0}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
SOLUTIONS=$REPO/solutions
GRADER_ACCOUNT=grader-$COURSE
GRADERS_GROUP=formgrade-$COURSE
STUDENTS=${STUDENTS:-}
if [ -n "${STUDENTS_FILE:-}" ]; then STUDENTS="$STUDENTS $(grep -v '^\s*\(#\|$\)' "$STUDENTS_FILE" | tr '\n' ' ')"; fi
CHAPTERS=${CHAPTERS:-$(cd "$SOLUTIONS" && for d in ch*/; do [ -f "$d${d%/}.ipynb" ] && printf '%s ' "${d%/}"; done)}

die() { echo "setup_course.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root"
[ -x "$VENV/bin/nbgrader" ] || die "$VENV/bin/nbgrader is missing: run install.sh first"
valid='^[a-z_][a-z0-9_-]{0,31}$'
for u in $INSTRUCTOR $STUDENTS $GRADERS; do [[ $u =~ $valid ]] || die "not a plain user name: $u"; done
[[ $COURSE =~ ^[A-Za-z0-9_-]+$ ]] || die "not a plain course id: $COURSE"
for s in $STUDENTS; do
  for staff in $INSTRUCTOR $GRADERS; do [ "$s" != "$staff" ] || die "$s is both a student and staff"; done
done
umask 022
cd /  # commands run as other users below need no access to the caller's folder

home_of() { getent passwd "$1" | cut -d: -f6; }
ensure_user() {  # ensure_user NAME [SHELL]
  if ! id "$1" >/dev/null 2>&1; then
    [ "$CREATE_USERS" = 1 ] || [ "$1" = "$GRADER_ACCOUNT" ] || die "no user $1 (CREATE_USERS=1 creates it)"
    useradd -m -s "${2:-/bin/bash}" "$1"
  fi
  local h; h=$(home_of "$1")
  [ -d "$h" ] || die "$1 has no home folder ($h)"
  chmod 700 "$h"
}
for u in $INSTRUCTOR $GRADERS $STUDENTS; do ensure_user "$u"; done
ensure_user "$GRADER_ACCOUNT"

# The exchange: the root is root's, 1777 (nbgrader's release fails unless it is 777 and does
# not look at the sticky bit); the course's folders are the instructor's, made before any
# student can log in.
mkdir -p "$EXCHANGE"
chown root:root "$EXCHANGE"; chmod 1777 "$EXCHANGE"
# Made by the instructor, so that root follows no path that someone else could have made.
made=0
runuser -u "$INSTRUCTOR" -- sh -c 'umask 022; mkdir -p "$1/outbound" "$1/inbound" &&
  chmod 755 "$1" "$1/outbound" && chmod 3733 "$1/inbound"' sh "$EXCHANGE/$COURSE" || made=1
for d in "$EXCHANGE/$COURSE" "$EXCHANGE/$COURSE/outbound" "$EXCHANGE/$COURSE/inbound"; do
  if [ -e "$d" ] || [ -L "$d" ]; then
    [ ! -L "$d" ] && [ "$(stat -c %U "$d")" = "$INSTRUCTOR" ] || \
      die "$d is not $INSTRUCTOR's folder: someone made it first; look at it, remove it, run again"
  fi
done
[ "$made" = 0 ] || die "cannot make $EXCHANGE/$COURSE as $INSTRUCTOR"

# Root's grading folder: what collect copies and what grade writes stay root's alone.
install -d -o root -g root -m 700 "$GRADING"

# Site-wide nbgrader settings, read by every user of the venv (students need nothing else).
install -d -m 755 "$VENV/etc/jupyter"
cat > "$VENV/etc/jupyter/nbgrader_config.py" <<PY
# Written by deploy/jupyterhub/setup_course.sh
c = get_config()  # noqa: F821
c.Exchange.root = "$EXCHANGE"
c.CourseDirectory.course_id = "$COURSE"
# each submission folder only its student (and root) can open (install.sh installs it)
c.ExchangeFactory.submit = "reftensor_hub_exchange.PrivateSubmit"
PY
chmod 644 "$VENV/etc/jupyter/nbgrader_config.py"

# A course folder for nbgrader (source/ from solutions/, the course's settings), made by
# its owner $1 (root writes nothing into a home folder itself: it would follow the links its
# owner left there). A source notebook already there is kept (the instructor may have
# edited it); the settings are written again.
as_user() { local user=$1; shift; runuser -u "$user" -- "$@"; }
write_as() {  # write_as USER MODE PATH < content
  runuser -u "$1" -- sh -c 'umask 077; cat > "$2.new" && chmod "$1" "$2.new" && mv -f "$2.new" "$2"' \
    sh "$2" "$3"
}
course_folder() {
  local user=$1 home folder
  home=$(home_of "$user"); folder=$home/$COURSE
  as_user "$user" sh -c 'umask 077; mkdir -p "$1/source" "$2" && chmod 700 "$1"' sh "$folder" "$home/.jupyter"
  for ch in $CHAPTERS; do
    [ -f "$SOLUTIONS/$ch/$ch.ipynb" ] || die "no $SOLUTIONS/$ch/$ch.ipynb"
    as_user "$user" sh -c 'umask 077; mkdir -p "$1"' sh "$folder/source/$ch"
    if ! as_user "$user" test -e "$folder/source/$ch/$ch.ipynb"; then
      write_as "$user" 600 "$folder/source/$ch/$ch.ipynb" < "$SOLUTIONS/$ch/$ch.ipynb"
    fi
  done
  { cat "$REPO/autograder/course/nbgrader_config.py"
    printf '\n# Written by deploy/jupyterhub/setup_course.sh\n'
    printf 'c.CourseDirectory.root = "%s"\nc.CourseDirectory.course_id = "%s"\nc.Exchange.root = "%s"\n' \
      "$folder" "$COURSE" "$EXCHANGE"
  } | write_as "$user" 600 "$folder/nbgrader_config.py"
  printf 'c = get_config()  # noqa: F821\nc.CourseDirectory.root = "%s"\nc.CourseDirectory.course_id = "%s"\n' \
    "$folder" "$COURSE" | write_as "$user" 600 "$home/.jupyter/nbgrader_config.py"
}
course_folder "$INSTRUCTOR"
course_folder "$GRADER_ACCOUNT"

# What the hub reads (jupyterhub_config.py): the course, its users, its graders' group.
install -d -m 755 "$HUB_ETC"
"$VENV/bin/python" - "$HUB_ETC/course.json" <<PY
import json, sys
words = lambda s: sorted(set(s.split()))
course = {
    "course": "$COURSE", "venv": "$VENV", "exchange": "$EXCHANGE",
    "instructor": "$INSTRUCTOR", "students": words("$STUDENTS"), "graders": words("$GRADERS"),
    "grader_account": "$GRADER_ACCOUNT", "graders_group": "$GRADERS_GROUP",
    "grader_course_dir": "$(home_of "$GRADER_ACCOUNT")/$COURSE",
}
with open(sys.argv[1] + ".new", "w") as f:
    json.dump(course, f, indent=1)
PY
chmod 644 "$HUB_ETC/course.json.new"; mv "$HUB_ETC/course.json.new" "$HUB_ETC/course.json"
echo "setup_course.sh: course $COURSE: instructor $INSTRUCTOR, graders: $GRADERS," \
     "$(echo $STUDENTS | wc -w) students, chapters: $CHAPTERS"
echo "setup_course.sh: grading folder (root's): $GRADING"
echo "setup_course.sh: wrote $HUB_ETC/course.json; (re)start the hub to read it"
