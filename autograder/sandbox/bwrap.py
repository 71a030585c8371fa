"""Run untrusted student code in a bubblewrap sandbox.

Layering of one sandboxed command, outermost first (see ``command()``):

1. ``bwrap``, started as root *without* a user namespace, so it may bind paths that only root
   can reach (the Python of this machine lives under ``/root``). It unshares the pid, network,
   IPC, UTS and (where possible) cgroup namespaces, puts the command in a new session
   (``setsid``, no terminal to inject keystrokes into), kills it when bwrap or bwrap's parent
   dies, and builds a fresh root on a tmpfs holding only:

   - ``/usr`` read-only (``/bin``, ``/sbin``, ``/lib*`` as the host has them: symlinks into it),
   - a few files of ``/etc`` (dynamic linker cache, time zone, ...) read-only, plus a
     ``passwd``/``group`` naming only root and the grader user,
   - ``sys.base_prefix`` and ``sys.prefix`` (the interpreter and the virtualenv) read-only,
     with ``torch``, ``functorch`` and ``torchgen`` masked by empty tmpfs mounts and the base
     interpreter's own ``site-packages`` masked whole (the virtualenv does not use it),
   - a sandbox-only ``sitecustomize`` (first on ``PYTHONPATH``) that makes ``import torch``
     fail with a clear ``ModuleNotFoundError``,
   - a private ``/dev`` and ``/proc``,
   - the only writable place: a fresh tmpfs on ``/tmp`` of at most ``Limits.scratch_mb``
     and ``Limits.scratch_inodes`` files, folders and links (``HOME``, ``TMPDIR`` and the
     working directory). ``unshare`` and ``mount`` make it, before bwrap starts, in a mount
     namespace of the sandbox's own (bwrap's ``--tmpfs`` has no inode bound, and every empty
     file costs the host about a KiB of kernel memory); it vanishes with the sandbox: nothing a
     sandbox writes ever lands on the host, so no process outside ever opens, walks or chmods
     a path a sandbox could have planted,
   - each ``readable`` path read-only, at its own path.

   Directories created to hold these mount points are made ``0755``: bwrap would make them
   ``0700`` (root only), which would hide ``/root/.pyenv/...`` from the dropped user.
2. ``setpriv`` drops to the slot's grader user (real, effective and saved ids; each sandbox
   running at once holds a slot of its own, ``SLOTS`` of them), clears supplementary
   groups, empties the inheritable and bounding capability sets and sets ``no_new_privs``.
3. ``prlimit`` sets hard and soft resource limits (``Limits``), then execs the command.

``run()`` starts bwrap in a session of its own and learns the host pid of the sandbox's pid 1
from ``--info-fd``. On timeout it SIGKILLs that pid 1 (through a pidfd); the kernel then kills
every process of the pid namespace, whatever signals they ignore and however they detached, and
bwrap exits (bwrap's process group is SIGKILLed as well if it does not). Before returning it
checks /proc that no process of the slot's user is left in that namespace.

The sandbox needs root, ``bwrap``, ``setpriv`` and ``prlimit``. ``status()`` says whether it
works here and, if not, what is missing; ``command()`` and ``run()`` raise
``SandboxUnavailable`` with that reason instead of running anything unsandboxed. A caller that
chooses to grade without the sandbox must say so itself, loudly.

What comes back from a sandbox is only bytes: its exit status, at most ``output_limit`` bytes
of each of stdout and stderr (counted while they are read), and whatever the caller reads from
the file descriptors it passes in (``pass_fds``), which the caller must bound itself.

While it waits, ``run()`` samples the scheduler's statistics of the sandbox's tasks: the
``Result`` says how long they were on a CPU and how long they waited for one (the host's load),
and ``usage()`` sums every run of the process, so that a time rule can leave the host's load
out.

What the limits do not cover: RLIMIT_AS is per process (a program with many processes may use
``processes * memory_mb``); RLIMIT_NPROC counts every process and thread of a user on the whole
machine, so each sandbox running at once runs as a user of its own (a slot); more than
``SLOTS`` at once wait for a slot. The scratch tmpfs is memory: each running sandbox may hold
up to ``scratch_mb`` of it, and the kernel's records of at most ``scratch_inodes`` files (about
16 MiB of slab at the default), until it ends. No seccomp filter is installed.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import glob
import hashlib
import json
import logging
import os
import pwd
import py_compile
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import astuple, dataclass
from pathlib import Path

__all__ = ["SandboxUnavailable", "Limits", "Status", "Result", "status", "command", "run",
           "install_files", "leftover_processes", "escaped_processes", "usage", "Usage",
           "GRADER_USER", "SCRATCH"]

log = logging.getLogger(__name__)

GRADER_USER = "reftensor-grader"
#: sandboxes that may run at once, each as a user of its own (GRADER_USER, then
#: GRADER_USER-1, ...): RLIMIT_NPROC counts a user's processes machine-wide, so a sandbox that
#: forks to its limit must not take the processes of another running beside it
SLOTS = max(1, int(os.environ.get("REFTENSOR_SANDBOX_SLOTS", "16")))
FALLBACK_USER = "nobody"
MASKED_PACKAGES = ("torch", "functorch", "torchgen")
# Where the sandbox-only Python path (the torch blocker) appears inside the sandbox.
SANDBOX_PYTHONPATH = "/.sandbox/python"
# Support files (blocker, passwd, group) live here on the host, root-owned, content-addressed.
SUPPORT_ROOT = Path("/run/reftensor-sandbox")
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone",
             "nsswitch.conf", "hosts", "host.conf", "alternatives", "mime.types", "protocols",
             "services")
# At most this many bytes of each of stdout and stderr are kept by run(); the rest is drained.
OUTPUT_LIMIT = 1024 * 1024
# The sandbox's only writable folder (a size-limited tmpfs), its HOME, TMPDIR and working dir.
SCRATCH = "/tmp"
MIB = 1024 * 1024

BLOCKER = '''\
"""Loaded only inside the grading sandbox: torch and its companions cannot be imported."""
import sys

_BLOCKED = {blocked!r}


class _TorchBlocker:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.partition(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(
                f"No module named {{name!r}} (torch is not available while grading)", name=name)
        return None


sys.meta_path.insert(0, _TorchBlocker)
'''


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run on this machine; the message says what is missing."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of every process in the sandbox (hard and soft)."""

    memory_mb: int = 2048      # RLIMIT_AS: address space per process
    cpu_seconds: int = 120     # RLIMIT_CPU: CPU time per process
    processes: int = 256       # RLIMIT_NPROC: processes and threads of the slot's user
    file_size_mb: int = 16     # RLIMIT_FSIZE: largest file a process may write
    open_files: int = 256      # RLIMIT_NOFILE
    scratch_mb: int = 128      # size of the tmpfs on /tmp, the only writable place
    scratch_inodes: int = 16_384  # files, folders and links the tmpfs on /tmp may hold


@dataclass(frozen=True)
class Status:
    """Whether the sandbox works here; ``reason`` says why not (or notes a degraded setup)."""

    available: bool
    reason: str
    user: str | None
    uid: int | None
    # every slot's uid (``uid`` is the first): each sandbox that runs at the same time as
    # others runs as a user of its own, so no sandbox shares another's process limit
    uids: tuple[int, ...] = ()


@dataclass
class Result:
    """What one sandboxed run did.

    ``returncode`` is the command's exit status, or 128 + N when a signal N killed it (bwrap's
    convention): 137 after a timeout or when the CPU limit is reached (SIGKILL, since the soft
    and hard limits are equal).
    """

    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool
    seconds: float
    # Of the sandbox's tasks, summed (sampled from /proc while it ran, see _Accounting):
    # seconds on a CPU, and seconds spent ready to run but waiting for a CPU (the host's load)
    cpu_seconds: float = 0.0
    wait_seconds: float = 0.0


@dataclass
class Usage:
    """What this process's sandboxed runs have cost so far (see :func:`usage`)."""

    runs: int = 0
    seconds: float = 0.0  # wall seconds, run by run
    cpu_seconds: float = 0.0
    wait_seconds: float = 0.0  # ready to run, waiting for a CPU that other work held
    # wall seconds less the wait, run by run (never below 0): what the runs would have taken
    # on an idle machine
    unloaded_seconds: float = 0.0

    def since(self, earlier: Usage) -> Usage:
        return Usage(*(a - b for a, b in zip(astuple(self), astuple(earlier), strict=True)))


@dataclass(frozen=True)
class _User:
    name: str
    uid: int
    gid: int


# ---------------------------------------------------------------------------------------------
# Availability


@functools.cache
def status() -> Status:
    """Check once per process whether the sandbox works: root, the programs, the grader user
    and a real trial run. Logs a warning when it does not."""
    result = _probe()
    if not result.available:
        log.warning("SANDBOX UNAVAILABLE: %s", result.reason)
    elif "fallback" in result.reason:
        log.warning("sandbox degraded: %s", result.reason)
    return result


def _probe() -> Status:
    if not sys.platform.startswith("linux"):
        return Status(False, f"the sandbox needs Linux (this is {sys.platform})", None, None)
    if os.geteuid() != 0:
        return Status(False, f"the sandbox must be started by root (running as uid "
                      f"{os.geteuid()}): bwrap binds root-only paths and setpriv drops to the "
                      f"grader user", None, None)
    missing = [name for name in ("bwrap", "setpriv", "prlimit", "unshare", "mount")
               if not shutil.which(name)]
    if missing:
        return Status(False, "missing programs: " + ", ".join(missing)
                      + " (bwrap: apt-get install bubblewrap; setpriv, prlimit, unshare, "
                      "mount: util-linux)",
                      None, None)
    for name in ("setpriv", "prlimit"):
        found = Path(shutil.which(name) or "").resolve()
        if not found.is_relative_to("/usr"):
            return Status(False, f"{name} is {found}, outside /usr, so not visible inside the "
                          f"sandbox", None, None)
    try:
        user, note = _ensure_user()
    except OSError as err:
        return Status(False, f"no unprivileged user to run as: {err}", None, None)
    slots, slot_note = _slot_users(user) if not note else ([user], "")
    try:
        for slot in slots:
            _support_dir(slot)
    except OSError as err:
        return Status(False, f"cannot write the sandbox support files: {err}", None, None)
    trouble = _trial_run(user)
    if trouble:
        return Status(False, f"trial run in the sandbox failed: {trouble}", user.name, user.uid)
    reason = (f"bubblewrap sandbox running as {user.name} (uid {user.uid})"
              + (f" and {len(slots) - 1} more users, one per sandbox running at once"
                 if len(slots) > 1 else ""))
    notes = "; ".join(n for n in (note, slot_note) if n)
    return Status(True, f"{reason}; {notes}" if notes else reason, user.name, user.uid,
                  tuple(u.uid for u in slots))


def _ensure_user() -> tuple[_User, str]:
    """The dedicated grader user, created if missing; ``nobody`` only if creation fails."""
    try:
        entry = pwd.getpwnam(GRADER_USER)
        return _User(entry.pw_name, entry.pw_uid, entry.pw_gid), ""
    except KeyError:
        pass
    done = subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                           "/usr/sbin/nologin", GRADER_USER], capture_output=True, text=True)
    try:
        entry = pwd.getpwnam(GRADER_USER)
        return _User(entry.pw_name, entry.pw_uid, entry.pw_gid), ""
    except KeyError:
        pass
    why = (done.stderr or done.stdout).strip() or f"useradd exited {done.returncode}"
    try:
        entry = pwd.getpwnam(FALLBACK_USER)
    except KeyError as err:
        raise OSError(f"cannot create {GRADER_USER} ({why}) and there is no "
                      f"{FALLBACK_USER}") from err
    note = (f"fallback: could not create {GRADER_USER} ({why}); running as {FALLBACK_USER}, "
            f"whose processes other services may share")
    return _User(entry.pw_name, entry.pw_uid, entry.pw_gid), note


def _slot_users(first: _User) -> tuple[list[_User], str]:
    """The users of the sandbox slots: ``first`` (the grader user) and ``SLOTS - 1`` more
    (``reftensor-grader-1``, ...), created if missing. Where they cannot be created, every
    sandbox runs as ``first`` and the note says what that costs."""
    users = [first]
    for k in range(1, SLOTS):
        name = f"{GRADER_USER}-{k}"
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            done = subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                                   "/usr/sbin/nologin", name], capture_output=True, text=True)
            try:
                entry = pwd.getpwnam(name)
            except KeyError:
                why = (done.stderr or done.stdout).strip() or f"exit {done.returncode}"
                return [first], (f"one user for every sandbox (could not create {name}: "
                                 f"{why}): sandboxes running at once share one process limit")
        users.append(_User(entry.pw_name, entry.pw_uid, entry.pw_gid))
    return users, ""


@contextlib.contextmanager
def _slot() -> Iterator[_User]:
    """A sandbox slot held for one run: its user runs no other sandbox meanwhile, in this
    process or any other (an exclusive lock on the slot's file, which the kernel releases when
    the holder dies). Waits for a slot when every one is busy."""
    state = status()
    if not state.available:
        raise SandboxUnavailable(f"the grading sandbox is unavailable: {state.reason}")
    users = [_User(e.pw_name, e.pw_uid, e.pw_gid) for e in map(pwd.getpwuid, state.uids)] \
        or [_require()]
    folder = _support_root() / "slots"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o077:
        raise SandboxUnavailable(f"{folder} is not a folder of root's alone")
    start = (os.getpid() + threading.get_ident()) % len(users)
    order = [(start + k) % len(users) for k in range(len(users))]
    fds = {}
    try:
        for blocking in (False, True):
            for k in order if not blocking else order[:1]:
                fd = fds.get(k)
                if fd is None:
                    fd = fds[k] = os.open(folder / f"slot-{k}", os.O_RDWR | os.O_CREAT
                                          | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
                except BlockingIOError:
                    continue
                try:
                    yield users[k]
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                return
    finally:
        for fd in fds.values():
            os.close(fd)


def _trial_run(user: _User) -> str | None:
    """Run a tiny program in the sandbox; return what went wrong, or None."""
    probe = ("import os\n"
             "caps = [l for l in open('/proc/self/status') if l.startswith('CapEff')]\n"
             "try:\n    import torch\n    t = 'torch'\nexcept ModuleNotFoundError:\n    t = '-'\n"
             "print(os.getuid(), os.getgid(), caps[0].split()[1], t)\n")
    try:
        cmd = _build([sys.executable, "-c", probe], user=user, readable=(), env=None,
                     limits=Limits(), cwd=None)
        result = _execute(cmd, user=user, input=None, timeout=30, pass_fds=())
    except OSError as err:
        return str(err)
    expected = f"{user.uid} {user.gid} 0000000000000000 -"
    if result.returncode != 0 or result.stdout.decode(errors="replace").strip() != expected:
        tail = (result.stdout + result.stderr).decode(errors="replace").strip()[-800:]
        return f"exit {result.returncode}, expected {expected!r}, got: {tail}"
    return None


def _require() -> _User:
    state = status()
    if not state.available:
        raise SandboxUnavailable(f"the grading sandbox is unavailable: {state.reason}")
    assert state.user is not None
    entry = pwd.getpwnam(state.user)
    return _User(entry.pw_name, entry.pw_uid, entry.pw_gid)


# ---------------------------------------------------------------------------------------------
# Building the command


def command(argv: list[str], *, readable: Sequence[Path] = (),
            env: Mapping[str, str] | None = None, limits: Limits = Limits(),
            cwd: Path | None = None) -> list[str]:
    """The argv that runs ``argv`` inside the sandbox.

    The only writable place inside is a fresh tmpfs of ``limits.scratch_mb`` on ``/tmp``
    (``SCRATCH``); each ``readable`` path is bound read-only at its own path and must be
    readable by others (``chmod o+rX``). ``env`` is the complete environment inside, on top of
    defaults (``PATH``, ``HOME=TMPDIR=/tmp``, ``LANG``, one BLAS thread, ...); the torch
    blocker is always first on ``PYTHONPATH``. ``cwd`` (default ``/tmp``) must be visible
    inside. Raises ``SandboxUnavailable`` when ``status()`` is not available.
    """
    user = _require()
    return _build(argv, user=user, readable=readable, env=env, limits=limits, cwd=cwd)


def _build(argv: list[str], *, user: _User, readable: Sequence[Path],
           env: Mapping[str, str] | None, limits: Limits, cwd: Path | None) -> list[str]:
    if not argv:
        raise ValueError("empty argv")
    ro = [Path(p).resolve() for p in readable]
    for path in ro:
        if path.is_relative_to(SCRATCH):
            raise ValueError(f"readable path {path} would be hidden by the scratch tmpfs")
        _check_readable(path)
    support = _support_dir(user)

    args = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", "grading-sandbox", "--die-with-parent",
            "--new-session", "--clearenv"]
    for key, value in _environment(user, env).items():
        args += ["--setenv", key, value]
    made: set[Path] = set()

    # The system: /usr, and /bin, /sbin, /lib* the way the host has them.
    args += ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--perms", "0755", "--dir", "/etc"]
    for name in ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += ["--ro-bind", str(support / "passwd"), "/etc/passwd",
             "--ro-bind", str(support / "group"), "/etc/group",
             "--dev", "/dev", "--proc", "/proc",
             "--bind", str(_scratch_mount()), SCRATCH]

    # The interpreter and the virtualenv, with torch masked.
    for prefix in _python_prefixes():
        args += _parents(prefix, made) + ["--ro-bind", str(prefix), str(prefix)]
    for masked in _masked_paths():
        args += ["--tmpfs", str(masked)]
    args += _parents(Path(SANDBOX_PYTHONPATH), made)
    args += ["--ro-bind", str(support / "python"), SANDBOX_PYTHONPATH]

    # What the caller grants, read-only; shallower paths first so that none hides a deeper one.
    for path in sorted(ro, key=lambda p: len(p.parts)):
        args += _parents(path, made) + ["--ro-bind", str(path), str(path)]

    inside = Path(cwd).resolve() if cwd is not None else Path(SCRATCH)
    if not any(inside.is_relative_to(p) for p in [Path(SCRATCH), *ro]):
        raise ValueError(f"cwd {inside} is not inside the scratch folder or a readable path")
    args += ["--chdir", str(inside), "--"]

    args += [shutil.which("setpriv") or "setpriv", f"--reuid={user.uid}", f"--regid={user.gid}",
             "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    args += [shutil.which("prlimit") or "prlimit", f"--as={limits.memory_mb * MIB}",
             f"--cpu={limits.cpu_seconds}", f"--nproc={limits.processes}",
             f"--fsize={limits.file_size_mb * MIB}", f"--nofile={limits.open_files}",
             "--core=0", "--"]
    bwrap = shutil.which("bwrap") or "bwrap"
    return [*_scratch_prefix(limits), bwrap, *args[1:], *argv]


def _scratch_mount() -> Path:
    """The empty, root-owned folder on which each sandbox's scratch tmpfs is mounted, in a
    mount namespace of the sandbox's own (so no process outside ever sees what is in it)."""
    folder = _support_root() / "scratch"
    _support_root().mkdir(mode=0o755, exist_ok=True)
    folder.mkdir(mode=0o755, exist_ok=True)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        raise OSError(f"{folder} must be a directory owned by root and writable only by it")
    return folder


def _scratch_prefix(limits: Limits) -> list[str]:
    """What starts bwrap: ``unshare`` gives it a private mount namespace, in which ``mount``
    puts a tmpfs bounded in bytes *and* in inodes on :func:`_scratch_mount` (bwrap's own
    ``--tmpfs`` has a size but no inode bound, and each empty file costs the host about a KiB
    of kernel memory however small the byte limit), then bwrap binds it on ``/tmp``. The
    tmpfs is freed when the last process of that namespace ends."""
    options = (f"size={limits.scratch_mb * MIB},nr_inodes={limits.scratch_inodes},"
               "mode=1777,nosuid,nodev")
    mount = shutil.which("mount") or "/usr/bin/mount"
    return [shutil.which("unshare") or "unshare", "--mount", "--propagation", "private", "--",
            "/bin/sh", "-c", f'{mount} -t tmpfs -o {options} rt-scratch "$0" && exec "$@"',
            str(_scratch_mount())]


def _environment(user: _User, env: Mapping[str, str] | None) -> dict[str, str]:
    full = {
        "PATH": f"{sys.prefix}/bin:/usr/local/bin:/usr/bin:/bin",
        "HOME": SCRATCH,
        "TMPDIR": SCRATCH,
        "USER": user.name,
        "LOGNAME": user.name,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "MPLBACKEND": "Agg",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "MALLOC_ARENA_MAX": "2",
    }
    full.update(env or {})
    extra = full.get("PYTHONPATH", "")
    full["PYTHONPATH"] = SANDBOX_PYTHONPATH + (os.pathsep + extra if extra else "")
    return full


def _parents(path: Path, made: set[Path]) -> list[str]:
    """``--dir`` arguments making each missing ancestor of ``path`` traversable (0755)."""
    args: list[str] = []
    for parent in reversed(path.parents):
        if parent == Path("/") or parent in made:
            continue
        made.add(parent)
        args += ["--perms", "0755", "--dir", str(parent)]
    return args


def _check_readable(path: Path) -> None:
    mode = path.stat().st_mode
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    if mode & need != need:
        raise ValueError(f"readable path {path} (mode {stat.S_IMODE(mode):o}) is not readable by "
                         f"the grader user; chmod o+rX it")


@functools.cache
def _python_prefixes() -> tuple[Path, ...]:
    """The interpreter's installation and the virtualenv, outside /usr."""
    found: list[Path] = []
    for raw in (sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix):
        path = Path(raw)
        if path.is_relative_to("/usr") or path in found:
            continue
        found.append(path)
    return tuple(sorted(found, key=lambda p: len(p.parts)))


@functools.cache
def _masked_paths() -> tuple[Path, ...]:
    """Directories hidden under empty tmpfs mounts: torch and friends wherever they are
    installed, and the base interpreter's site-packages when a virtualenv ignores them."""
    masked: list[Path] = []
    base_sites = {Path(p) for p in glob.glob(f"{sys.base_prefix}/lib/python3*/site-packages")}
    if sys.prefix != sys.base_prefix and not _venv_uses_system_site():
        masked += sorted(base_sites)
    roots = [*_python_prefixes(), Path("/usr"), Path("/usr/local")]
    for root in roots:
        for site in sorted(glob.glob(f"{root}/lib/python3*/*-packages")
                           + glob.glob(f"{root}/lib/python3/dist-packages")):
            if any(Path(site).is_relative_to(m) for m in masked):
                continue
            for name in MASKED_PACKAGES:
                for hit in sorted(glob.glob(f"{site}/{name}") + glob.glob(f"{site}/{name}-*")
                                  + glob.glob(f"{site}/{name}.libs")):
                    if Path(hit).is_dir() and Path(hit) not in masked:
                        masked.append(Path(hit))
    return tuple(masked)


def _venv_uses_system_site() -> bool:
    cfg = Path(sys.prefix) / "pyvenv.cfg"
    if not cfg.is_file():
        return False
    for line in cfg.read_text().splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "include-system-site-packages":
            return value.strip().lower() == "true"
    return False


def _support_dir(user: _User) -> Path:
    """Root-owned files bound into every sandbox: the torch blocker, passwd and group."""
    return install_files("support", {
        "python/sitecustomize.py": BLOCKER.format(blocked=MASKED_PACKAGES).encode(),
        "passwd": (f"root:x:0:0:root:/root:/usr/sbin/nologin\n{user.name}:x:{user.uid}:"
                   f"{user.gid}:grader:/nonexistent:/usr/sbin/nologin\n").encode(),
        "group": f"root:x:0:\n{_group_name(user.gid)}:x:{user.gid}:\n".encode(),
    })


def _support_root() -> Path:
    # (/tmp inside a sandbox is its scratch tmpfs, which would hide anything bound from there)
    return SUPPORT_ROOT if os.access(SUPPORT_ROOT.parent, os.W_OK) else Path(
        "/var/tmp", "reftensor-sandbox-root")


def install_files(kind: str, files: Mapping[str, bytes]) -> Path:
    """A root-owned, read-only folder holding ``files`` (relative path -> bytes), under
    ``SUPPORT_ROOT``, named by ``kind`` and a hash of the content, for binding into sandboxes.

    Content-addressed and never removed or changed: a sandbox can write nowhere on the host,
    so whatever a sandbox runs from here was written by root alone; a second call with the
    same content returns the same folder, and a command built by one process still finds it.
    Folders are 0755 and files 0644; the root folder must be root's and writable only by it.
    Python files are compiled here too (``__pycache__``, checked against the source's hash,
    for this interpreter): a sandbox cannot write bytecode, and would otherwise compile every
    module it imports again, in every sandbox.
    """
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    root = _support_root()
    target = root / f"{kind}-{digest.hexdigest()[:16]}"
    root.mkdir(mode=0o755, exist_ok=True)
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        raise OSError(f"{root} must be a directory owned by root and writable only by it")
    if target.is_dir() and not target.is_symlink():
        return target
    staging = Path(tempfile.mkdtemp(dir=root))
    for name, data in files.items():
        path = staging / name
        if ".." in Path(name).parts or Path(name).is_absolute():
            raise ValueError(f"bad file name {name!r}")
        path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o644)
        if path.suffix == ".py":
            try:
                compiled = py_compile.compile(
                    str(path), doraise=True,
                    invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
                Path(compiled).chmod(0o644)
            except py_compile.PyCompileError:
                pass  # a file Python cannot compile gets no bytecode; importing it says why
    for folder in [staging, *(p for p in staging.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
    try:
        staging.rename(target)
    except OSError:  # another process got there first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _group_name(gid: int) -> str:
    import grp

    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return "grader"


# ---------------------------------------------------------------------------------------------
# Running


def run(argv: list[str], *, readable: Sequence[Path] = (), input: bytes | None = None,
        timeout: float = 60, limits: Limits = Limits(), env: Mapping[str, str] | None = None,
        pass_fds: Sequence[int] = (), stop: threading.Event | None = None,
        output_limit: int = OUTPUT_LIMIT) -> Result:
    """Run ``argv`` in the sandbox (see ``command()``) and wait for it.

    After ``timeout`` seconds, or as soon as ``stop`` is set (by a caller that has read enough
    from the sandbox), the whole sandbox is killed (its pid namespace dies with it);
    ``timed_out`` is set only for the timeout. When this returns, no process started by this
    call remains; if the check that proves it fails, RuntimeError is raised. Each of stdout and
    stderr keeps at most ``output_limit`` bytes, counted while they are read.
    """
    with _slot() as user:
        cmd = _build(argv, user=user, readable=readable, env=env, limits=limits, cwd=None)
        return _execute(cmd, user=user, input=input, timeout=timeout, pass_fds=pass_fds,
                        stop=stop, output_limit=output_limit)


def _execute(cmd: list[str], *, user: _User, input: bytes | None, timeout: float,
             pass_fds: Sequence[int], stop: threading.Event | None = None,
             output_limit: int = OUTPUT_LIMIT) -> Result:
    info_read, info_write = os.pipe()
    at = cmd.index(shutil.which("bwrap") or "bwrap") + 1  # after what starts bwrap
    cmd = [*cmd[:at], "--info-fd", str(info_write), *cmd[at:]]
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                pass_fds=(info_write, *pass_fds), start_new_session=True)
    except BaseException:
        os.close(info_read)
        raise
    finally:
        os.close(info_write)
    outputs: list[bytearray] = [bytearray(), bytearray()]
    helpers = [threading.Thread(target=_drain, args=(stream, out, output_limit), daemon=True)
               for stream, out in ((proc.stdout, outputs[0]), (proc.stderr, outputs[1]))]
    if input is not None:
        helpers.append(threading.Thread(target=_feed, args=(proc.stdin, input), daemon=True))
    for thread in helpers:
        thread.start()

    info = _read_info(info_read, deadline=start + max(timeout, 5))
    # While this pidfd on the sandbox's pid 1 is open, its pid namespace cannot be freed, so
    # the namespace's number cannot be reused by another sandbox before the check below.
    inner = _pidfd(info.get("child-pid"), parent=proc.pid)
    accounting = _Accounting(info.get("child-pid") if inner is not None else None)
    timed_out = False
    try:
        deadline = start + timeout
        while True:
            accounting.sample()
            step = min(0.1 if stop is not None else accounting.interval(),
                       deadline - time.monotonic())
            try:
                proc.wait(timeout=max(0.0, step))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    timed_out = True
                    _kill(proc, inner)
                    break
                if stop is not None and stop.is_set():
                    _kill(proc, inner)
                    break
        for thread in helpers:
            thread.join(timeout=5)
        seconds = time.monotonic() - start
        if inner is not None:
            _check_namespace_empty(inner, info.get("pid-namespace"), user.uid)
    finally:
        if inner is not None:
            os.close(inner)
    cpu, wait = accounting.totals()
    with _USAGE_LOCK:
        _USAGE.runs += 1
        _USAGE.seconds += seconds
        _USAGE.cpu_seconds += cpu
        _USAGE.wait_seconds += wait
        _USAGE.unloaded_seconds += max(0.0, seconds - wait)
    return Result(proc.returncode, bytes(outputs[0]), bytes(outputs[1]), timed_out, seconds,
                  cpu, wait)


_USAGE = Usage()
_USAGE_LOCK = threading.Lock()


def usage() -> Usage:
    """The sandboxed runs of this process so far, summed (a copy): take it before and after a
    piece of work and subtract (``Usage.since``) for what that work cost. The grader grades
    each submission in a process of its own, so there the difference is that submission's."""
    with _USAGE_LOCK:
        return Usage(*astuple(_USAGE))


class _Accounting:
    """The scheduler's statistics of a running sandbox's tasks, sampled from /proc.

    Every sample walks the process tree under the sandbox's pid 1 (``/proc/<pid>/task/<tid>/
    children``) and reads each task's ``schedstat``: nanoseconds on a CPU and nanoseconds
    runnable but waiting for one. The largest reading of each task is kept; what a task did
    after the last sample before it exited is not counted. The files are the kernel's (nothing
    the sandbox can write), each read bounded. Samples come often at first and then every
    0.25 s, so a short run costs almost nothing and a long one is followed closely.
    """

    MAX_TASKS = 2048  # per sample: a process limit of 256 keeps the tree smaller than this

    def __init__(self, root: int | None) -> None:
        self.root = root
        self.samples = 0
        self.seen: dict[int, tuple[int, int]] = {}  # tid -> (on a CPU, waiting), ns

    def interval(self) -> float:
        return 0.25 if self.samples > 8 else 0.03 * self.samples + 0.01

    def sample(self) -> None:
        self.samples += 1
        if self.root is None:
            return
        todo, done = [self.root], 0
        while todo and done < self.MAX_TASKS:
            pid = todo.pop()
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                done += 1
                if not tid.isdigit() or done > self.MAX_TASKS:
                    break
                base = f"/proc/{pid}/task/{tid}/"
                try:
                    with open(base + "schedstat", "rb") as handle:
                        fields = handle.read(256).split()
                    on_cpu, waiting = int(fields[0]), int(fields[1])
                    with open(base + "children", "rb") as handle:
                        todo += [int(c) for c in handle.read(65536).split()]
                except (OSError, ValueError, IndexError):
                    continue
                old = self.seen.get(int(tid), (0, 0))
                self.seen[int(tid)] = (max(old[0], on_cpu), max(old[1], waiting))

    def totals(self) -> tuple[float, float]:
        """(seconds on a CPU, seconds waiting for one), summed over the tasks seen."""
        return (sum(c for c, _ in self.seen.values()) / 1e9,
                sum(w for _, w in self.seen.values()) / 1e9)


def _drain(stream, out: bytearray, limit: int) -> None:
    """Read a pipe to its end, keeping at most ``limit`` bytes."""
    truncated = False
    with stream:
        while chunk := stream.read1(65536):
            room = limit - len(out)
            if len(chunk) <= room:
                out += chunk
            elif not truncated:
                out += chunk[:room] + b"\n[output truncated by the sandbox]\n"
                truncated = True


def _feed(stream, data: bytes) -> None:
    try:
        with stream:
            stream.write(data)
    except (BrokenPipeError, OSError):
        pass


def _read_info(fd: int, deadline: float) -> dict:
    """bwrap's --info-fd JSON (child pid, namespaces); {} if bwrap failed before writing it."""
    data = b""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    try:
        return json.loads(data) if data else {}
    except ValueError:
        return {}


def _pidfd(pid: int | None, parent: int) -> int | None:
    """A pidfd on bwrap's child (pid 1 of the sandbox), if it is still bwrap's child."""
    if not pid or not hasattr(os, "pidfd_open"):
        return None
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return None
    if _ppid(pid) != parent:  # it exited already and the pid is someone else's
        os.close(fd)
        return None
    return fd


def _ppid(pid: int) -> int | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(text.rpartition(")")[2].split()[1])


def _kill(proc: subprocess.Popen, inner: int | None) -> None:
    """Kill the sandbox: its pid 1 (so the kernel kills everything in the pid namespace and
    bwrap exits by itself), and bwrap's process group if that does not end it promptly."""
    if inner is not None:
        try:
            signal.pidfd_send_signal(inner, signal.SIGKILL)
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()


def _check_namespace_empty(inner: int, namespace: int | None, uid: int,
                           patience: float = 5.0) -> None:
    """Make sure no process of ``uid`` is left in the sandbox's pid namespace.

    When the sandbox's pid 1 has exited, the kernel has killed and reaped every other process
    of its namespace; this waits for that exit and then checks /proc all the same. Without a
    pidfd (pid 1 was gone before one could be opened) there is nothing left to check: the
    namespace died with it.
    """
    deadline = time.monotonic() + patience
    if not select.select([inner], [], [], patience)[0]:
        raise RuntimeError("the sandbox's pid 1 did not exit after bwrap did")
    while namespace:
        left = [pid for pid in leftover_processes(uid) if _pid_namespace(pid) == namespace]
        if not left:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"sandbox processes survived their sandbox: {left}")
        time.sleep(0.02)


def _pid_namespace(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}/ns/pid").st_ino
    except OSError:
        return None


def _slot_uids() -> tuple[int, ...]:
    """The grader users' uids, from ``status()`` or, where it found no sandbox, by name."""
    state = status()
    if state.uids:
        return state.uids
    found = []
    for name in [GRADER_USER] + [f"{GRADER_USER}-{k}" for k in range(1, SLOTS)]:
        try:
            found.append(pwd.getpwnam(name).pw_uid)
        except KeyError:
            continue
    return tuple(found)


def escaped_processes(uid: int | None = None) -> list[int]:
    """Pids (host view) of the grader user's processes that no running sandbox holds: any in
    the host's pid namespace, and any in a sandbox whose bwrap has exited or has lost the
    grading process that started it (bwrap reparented to pid 1). Processes inside sandboxes
    that grading runs are still running, this one's or others beside it, are not counted, so
    the check holds while other runs go on. (``leftover_processes`` counts every process.)"""
    host = _pid_namespace(1)
    escaped = []
    for pid in leftover_processes(uid):
        namespace = _pid_namespace(pid)
        if namespace is None:
            continue  # gone meanwhile
        if namespace == host or not _held_by_a_running_sandbox(pid, namespace):
            escaped.append(pid)
    return escaped


def _held_by_a_running_sandbox(pid: int, namespace: int) -> bool:
    """Whether ``pid``'s pid namespace has its pid 1 under a bwrap that is still some
    process's child other than pid 1's."""
    for _ in range(4096):  # a chain of ancestors in one namespace, bounded
        parent = _ppid(pid)
        if parent is None or parent <= 1:
            return False
        if _pid_namespace(parent) != namespace:  # pid is the namespace's pid 1
            try:
                comm = Path(f"/proc/{parent}/comm").read_text().strip()
            except OSError:
                return False
            grand = _ppid(parent)
            return comm == "bwrap" and grand is not None and grand > 1
        pid = parent
    return False


def leftover_processes(uid: int | None = None) -> list[int]:
    """Pids (host view) of all processes owned by ``uid``, or by any slot's user (the grader
    users), for the grading audit."""
    if uid is None:
        uids = set(_slot_uids())
        if not uids:
            return []
    else:
        uids = {uid}
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                for line in handle:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) in uids:
                            found.append(int(entry))
                        break
        except OSError:
            continue
    return sorted(found)
