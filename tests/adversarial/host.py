"""Chapter-1 submissions that attack the grading *host* rather than the score, and honest ones
that must keep every point.

The categories (each several kinds) follow the holes reported in issue 21:

- **planting**: symlinks, hard links, FIFOs and device nodes left in every folder a sandbox can
  write, under names a privileged process may open later (the notebook, ``gradebook.db``,
  ``references.json``, feedback pages, ``judge.py``, kernel files), at import time of an answer
  cell, inside the function (once per case) and from a background process;
- **hidden-input extraction**: stack frames, ``gc``, ``/proc/*/mem``, stdin and other open
  files, or plain memory of earlier calls, turned into a returned value (or an exception class
  name) that the feedback quotes for a visible case;
- **report-breaking strings**: lone surrogates, terminal escape sequences, carriage returns,
  bidirectional overrides, NUL and megabytes of text in every field of the notebook the
  rebuild reads, in exception class names, in file and folder names;
- **malformed result channel**: what a judge's result pipe may carry besides honest lines;
- **flooding and stalling**: right answers that print hundreds of MB, write ~1 GB of files per
  exercise, or sleep just under every timeout;
- **IPython syntax** in right answers (honest controls).

Honest answers are the instructor's own (``tests.notebooks.answer_sources``), wrong ones are
typical mistakes, so any point a wrong answer gets is a point wrongly awarded. Where a sample's
state may rightly be either of two, ``Sample.state`` names both, separated by ``|``.

Every planted link points at a :class:`Canaries` file of the sample's own, at the workspace's
gradebook or at the runtime the sandboxes run: never at anything else on the machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from autograder.course import exercises, pipeline
from tests.adversarial.corpus import Sample
from tests.notebooks import answer_sources

CHAPTER = "ch01_storage"
EXERCISES = ["storage_index", "contiguous_strides", "is_contiguous", "unfold_layout",
             "channels_last_strides"]
NOTEBOOK = f"{CHAPTER}.ipynb"

#: the three grading runs: ``main`` (two workers), ``report`` (strings that may stop a whole
#: batch from writing its report) and ``cross`` (attacks on what other students depend on,
#: graded one at a time in name order: x1, then the honest x2, then x3)
RUNS = ("main", "report", "cross")

#: The module's limit on one exercise's re-check (the rest of the suite gives 6 s): a stall
#: that sleeps 5 s of 6 overran in a full-tier run on a loaded machine (the re-check's own
#: start and cases took over 1 s more), so it has 3 s of room here.
EXERCISE_TIMEOUT = 8
CELL_TIMEOUT = 10
# Sleeps "just under" the module's limits: most of each, with room left for a loaded two-core
# machine to start the sandbox.
JUDGE_SLEEP = 5.0
CELL_SLEEP = 8.5


# ---------------------------------------------------------------- answers
def solution() -> dict[str, str]:
    """The instructor's answers (code and written), as a student would hand them in."""
    end_marker = re.compile(r"\n?[ \t]*### END SOLUTION[ \t]*$")
    return {k: end_marker.sub("", v).rstrip() for k, v in answer_sources(CHAPTER).items()}


#: typical mistakes, each failing its exercise's visible cases too (so an exercise answered
#: with one is worth 0 of its 4 points)
MISTAKES = {
    "storage_index": '''def storage_index(index, stride, storage_offset):
    # forgets where the tensor starts in its storage
    return sum(i * s for i, s in zip(index, stride))''',
    "contiguous_strides": '''def contiguous_strides(shape):
    # column-major: the first dimension moves fastest
    strides, step = [], 1
    for size in shape:
        strides.append(step)
        step *= max(size, 1)
    return tuple(strides)''',
    "is_contiguous": '''def is_contiguous(shape, stride):
    # walks the dimensions from the front, as if the last one were the slowest
    expected = 1
    for size, step in zip(shape, stride):
        if step != expected:
            return False
        expected *= size
    return True''',
    "unfold_layout": '''def unfold_layout(shape, stride, dimension, size, step):
    # one window short
    shape, stride = list(shape), list(stride)
    window_stride = stride[dimension]
    shape[dimension] = (shape[dimension] - size) // step
    stride[dimension] = step * window_stride
    return (*shape, size), (*stride, window_stride)''',
    "channels_last_strides": '''def channels_last_strides(shape):
    # the strides of the ordinary (NCHW) layout
    n, c, h, w = shape
    return (c * h * w, h * w, w, 1)''',
}


def _code(template: str, **values: Any) -> str:
    """``template`` with each ``$name`` replaced by ``repr(value)``."""
    return Template(template).substitute({k: repr(v) for k, v in values.items()})


def _wrap(name: str, before_call: str) -> str:
    """Code that re-defines ``name`` to run ``before_call`` (indented 4) and then the
    original function."""
    return (f"\n\n_hx_inner_{name} = {name}\n\n"
            f"def {name}(*args):\n{before_call}\n    return _hx_inner_{name}(*args)\n")


IN_KERNEL = '"ipykernel" in __import__("sys").modules'


# ---------------------------------------------------------------- canaries
@dataclass
class Canaries:
    """Host files the attacks aim at, and their state before grading.

    Each planting sample has two files of its own outside every workspace: a root-only one
    (mode 0600 in a 0700 root folder) and a world-readable one (0644 in a 0755 folder). The
    ``cross`` run's samples aim at the workspace's gradebook and at the runtime folder that the
    sandboxes run, whose paths :meth:`aim` records before the samples are written.
    """

    root: Path
    kinds: list[str] = field(default_factory=list)
    gradebooks: dict[str, Path] = field(default_factory=dict)  # run -> workspace gradebook
    runtimes: dict[str, Path] = field(default_factory=dict)  # run -> runtime folder

    def secret(self, kind: str) -> Path:
        return self.root / "secret" / f"{kind}.db"

    def public(self, kind: str) -> Path:
        return self.root / "public" / f"{kind}.txt"

    def make(self, kinds: list[str]) -> None:
        for folder, mode in (("secret", 0o700), ("public", 0o755)):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
            os.chmod(self.root / folder, mode)
        os.chmod(self.root, 0o755)
        for kind in kinds:
            for path, mode in ((self.secret(kind), 0o600), (self.public(kind), 0o644)):
                path.write_bytes(f"canary {kind} {secrets.token_hex(16)}\n".encode())
                os.chmod(path, mode)
            self.kinds.append(kind)

    def aim(self, run: str, gradebook: Path, runtime: Path) -> None:
        self.gradebooks[run] = gradebook
        self.runtimes[run] = runtime

    def runtime_files(self, run: str) -> list[Path]:
        """The runtime's judge first, then a few modules every sandbox imports."""
        root = self.runtimes[run]
        wanted = [root / "autograder" / "sandbox" / "judge.py",
                  root / "autograder" / "course" / "plain.py",
                  root / "autograder" / "__init__.py", root / "reftensor" / "__init__.py"]
        return [p for p in wanted if p.is_file()] or wanted

    def files(self) -> dict[str, Path]:
        """Every file canary of the samples, by a readable label."""
        out = {}
        for kind in self.kinds:
            out[f"{kind}: root-only canary"] = self.secret(kind)
            out[f"{kind}: world-readable canary"] = self.public(kind)
        return out


def fingerprint(path: Path, *, content: bool = True) -> Any:
    """What must not change about a host file or folder: type, mode, owner and (for files,
    unless ``content`` is false) a hash of the bytes; for a folder, the same of every entry."""
    try:
        info = os.lstat(path)
    except OSError as err:
        return f"missing ({err.strerror})"
    head = [stat.filemode(info.st_mode), info.st_uid, info.st_gid]
    if stat.S_ISLNK(info.st_mode):
        return [*head, "-> " + os.readlink(path)]
    if stat.S_ISDIR(info.st_mode):
        entries = {}
        for entry in sorted(path.rglob("*")):
            if "__pycache__" in entry.parts:  # Python's own cache: not the runtime's code
                continue
            entries[str(entry.relative_to(path))] = fingerprint(entry, content=content)
        digest = hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()
        return [*head, f"tree {len(entries)} entries {digest[:16]}"]
    if stat.S_ISREG(info.st_mode):
        if not content:
            with open(path, "rb") as f:
                magic = f.read(16)
            return [*head, "sqlite" if magic == b"SQLite format 3\x00" else "NOT SQLITE"]
        return [*head, hashlib.sha256(path.read_bytes()).hexdigest()[:16]]
    return [*head, "special file"]


# ---------------------------------------------------------------- planting
PLANTED_NAMES = [NOTEBOOK, "gradebook.db", "gradebook.db-journal", "references.json",
                 "notebook_references.json", f"{CHAPTER}.html", "index.html", "judge.py",
                 "grades.csv", "report.json", "manifest.json", "kernel.json",
                 "kernel-00000000-hx.json", "connection_file.json", "k-1", "k-2", "k-3",
                 f"{CHAPTER}.log"]

PLANT = r'''
import os as _os, stat as _stat, time as _time

_HX_TARGETS = $targets
_HX_HOW = $how
_HX_DEVICE = $device
_HX_REPLACE = $replace


def _hx_dirs():
    """Every folder this process can write: the usual ones, then a walk of / that skips
    read-only mounts (nothing under them is writable but other mounts, walked on their own)."""
    if globals().get("_hx_found") is not None:
        return _hx_found
    found = []
    for d in (_os.getcwd(), _os.environ.get("HOME"), _os.environ.get("TMPDIR"), "/tmp",
              "/dev/shm", "/var/tmp", "/run", "/run/user", "/dev/mqueue"):
        if d and _os.path.isdir(d) and _os.access(d, _os.W_OK):
            found.append(d)
    read_only = set()
    try:
        for line in open("/proc/self/mounts"):
            parts = line.split()
            if len(parts) > 3 and "ro" in parts[3].split(","):
                read_only.add(parts[1].replace("\\040", " "))
    except OSError:
        pass
    started = _time.monotonic()
    for root, dirs, _files in _os.walk("/"):
        if _time.monotonic() - started > 2:
            break
        dirs[:] = [d for d in dirs if _os.path.join(root, d) not in read_only
                   and _os.path.join(root, d) not in ("/proc", "/sys")]
        if _os.access(root, _os.W_OK):
            found.append(root)
    globals()["_hx_found"] = list(dict.fromkeys(found))
    return _hx_found


def _hx_plant():
    for d in _hx_dirs():
        for name, target in _HX_TARGETS.items():
            path = _os.path.join(d, name)
            try:
                info = _os.lstat(path)
            except OSError:
                info = None
            try:
                if info is not None:
                    if not _HX_REPLACE or _stat.S_ISDIR(info.st_mode) \
                            or _stat.S_ISSOCK(info.st_mode):
                        continue
                    if _HX_HOW == "symlink" and _stat.S_ISLNK(info.st_mode) \
                            and _os.readlink(path) == target:
                        continue
                    if _HX_HOW == "fifo" and _stat.S_ISFIFO(info.st_mode):
                        continue
                    _os.unlink(path)
                if _HX_HOW == "symlink":
                    _os.symlink(target, path)
                elif _HX_HOW == "hardlink":
                    _os.link(target, path)
                elif _HX_HOW == "fifo":
                    _os.mkfifo(path, 0o666)
                elif _HX_HOW == "device":
                    try:
                        _os.mknod(path, 0o666 | _stat.S_IFBLK, _HX_DEVICE)
                    except OSError:
                        _os.mknod(path, 0o666 | _stat.S_IFCHR, _os.makedev(1, 3))
            except OSError:
                pass


def _hx_daemon():
    """A grandchild in a session of its own that plants again every 50 ms for 40 s."""
    _hx_dirs()
    try:
        pid = _os.fork()
    except OSError:
        return
    if pid:
        _os.waitpid(pid, 0)
        return
    try:
        _os.setsid()
        if _os.fork() == 0:
            end = _time.monotonic() + 40
            while _time.monotonic() < end:
                try:
                    _hx_plant()
                except Exception:
                    pass
                _time.sleep(0.05)
    finally:
        _os._exit(0)
'''


def _plant(targets: dict[str, str], how: str, device: int, stage: str, base: dict[str, str],
           first: str = "storage_index", *, replace: bool | None = None,
           tag: str = "") -> dict[str, str]:
    """``base`` with planting code in its ``first`` answer cell: planting at import
    (``import``), in every function, once per case (``function``), from a background process
    (``daemon``), or all three (``all``). Symlinks replace what is there (the notebook the
    grader writes back, above all); other kinds only fill names that are free. ``tag`` keeps
    the helpers of several plantings in one submission apart."""
    def named(code: str) -> str:
        return code.replace("_hx_", f"_hx{tag}_").replace("_HX_", f"_HX{tag}_")

    prelude = _code(PLANT, targets=targets, how=how, device=device,
                    replace=how == "symlink" if replace is None else replace)
    if stage in ("import", "all"):
        prelude += "\n_hx_plant()\n"
    if stage in ("daemon", "all"):
        prelude += "\n_hx_daemon()\n"
    answers = dict(base)
    answers[first] = named(prelude) + "\n\n" + base[first]
    if stage in ("function", "all"):
        for name in EXERCISES:
            answers[name] = answers[name] + named(_wrap(name, "    _hx_plant()"))
    return answers


def _aimed(names: list[str], targets: list[Path]) -> dict[str, str]:
    """Each planted name pointing at one of ``targets``, the first name at the first."""
    return {name: str(targets[i % len(targets)]) for i, name in enumerate(names)}


# ---------------------------------------------------------------- hidden-input extraction
def _visible_reprs() -> dict[str, list[str]]:
    return {name: [repr(tuple(c.args)) for c in exercises.get(name).fixed] for name in EXERCISES}


def _arity() -> dict[str, int]:
    return {name: len(exercises.get(name).fixed[0].args) for name in EXERCISES}


LEAK = r'''
import os as _os, re as _re, sys as _sys, json as _json, time as _time

_HX_VISIBLE = $visible
_HX_ARITY = $arity
_HX_CALLS = {}


def _hx_decode(node):
    if type(node) is dict and set(node) == {"t", "v"}:
        t, v = node["t"], node["v"]
        if t in ("tuple", "list") and type(v) is list:
            items = [_hx_decode(x) for x in v]
            return tuple(items) if t == "tuple" else items
        return v
    raise ValueError("not a tagged value")


def _hx_collect(obj, found, depth=0):
    """Case arguments in ``obj``: tagged tuples, lists of them, requests holding "cases"."""
    if depth > 4:
        return
    if type(obj) is dict:
        if set(obj) == {"t", "v"}:
            try:
                value = _hx_decode(obj)
            except Exception:
                return
            if type(value) is tuple:
                found.append(value)
            return
        for key in ("cases", "request", "args", "case", "inputs", "pending", "queue"):
            if key in obj:
                _hx_collect(obj[key], found, depth + 1)
    elif type(obj) in (list, tuple):
        if type(obj) is tuple and obj and depth == 0:
            found.append(obj)
        for item in obj[:20000]:
            if type(item) in (dict, list):
                _hx_collect(item, found, depth + 1)


def _hx_from_frames():
    found = []
    frame = _sys._getframe(1)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            _hx_collect(value, found)
        frame = frame.f_back
    return found


def _hx_from_gc():
    import gc
    found = []
    for obj in gc.get_objects():
        if type(obj) is dict and ("cases" in obj or set(obj) == {"t", "v"}):
            _hx_collect(obj, found, 1 if "cases" in obj else 0)
        elif type(obj) is list and obj and type(obj[0]) is dict and set(obj[0]) == {"t", "v"}:
            _hx_collect(obj, found, 1)
    return found


_HX_TAGGED = _re.compile(rb'\{"t": ?"tuple", ?"v": ?\[')


def _hx_parse(blob, found, limit=20000):
    decoder = _json.JSONDecoder()
    for n, match in enumerate(_HX_TAGGED.finditer(blob)):
        if n > limit:
            break
        window = blob[match.start():match.start() + 4000].decode("ascii", "ignore")
        try:
            node, _end = decoder.raw_decode(window)
            value = _hx_decode(node)
        except Exception:
            continue
        if type(value) is tuple:
            found.append(value)


def _hx_from_proc():
    """cmdline and environ of every process, and the writable memory of any process this
    user may read (itself, its children, any helper of the same user)."""
    found, budget, started = [], 512 << 20, _time.monotonic()
    for pid in [p for p in _os.listdir("/proc") if p.isdigit()]:
        for part in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as f:
                    _hx_parse(f.read(1 << 20), found)
            except OSError:
                pass
        try:
            maps = open(f"/proc/{pid}/maps").read().splitlines()
            mem = open(f"/proc/{pid}/mem", "rb", 0)
        except OSError:
            continue
        with mem:
            for line in maps:
                if _time.monotonic() - started > 3 or budget <= 0:
                    break
                fields = line.split()
                if len(fields) < 2 or not fields[1].startswith("rw"):
                    continue
                low, high = (int(x, 16) for x in fields[0].split("-"))
                if high - low > (256 << 20):
                    continue
                try:
                    mem.seek(low)
                    blob = mem.read(high - low)
                except (OSError, ValueError, OverflowError):
                    continue
                budget -= len(blob)
                _hx_parse(blob, found)
    return found


def _hx_from_fds():
    """Whatever is waiting on stdin and on any other readable pipe or socket."""
    import fcntl, stat
    found = []
    for name in _os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            info = _os.fstat(fd)
            if not (stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)):
                continue
            flags = int([l for l in open(f"/proc/self/fdinfo/{fd}")
                         if l.startswith("flags:")][0].split()[1], 8)
            if flags & 3 == 1:
                continue
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | _os.O_NONBLOCK)
        except (OSError, ValueError, IndexError):
            continue
        data = b""
        while len(data) < (64 << 20):
            try:
                chunk = _os.read(fd, 1 << 20)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        globals().setdefault("_hx_stolen", []).append(data)
    for data in globals().get("_hx_stolen", []):
        _hx_parse(data, found)
    return found


def _hx_hidden(name, found):
    """The distinct arguments of ``name`` in ``found`` that are not its visible cases."""
    out = []
    for args in found:
        text = repr(args)
        if len(args) == _HX_ARITY[name] and text not in _HX_VISIBLE[name] and text not in out:
            out.append(text)
    return out


def _hx_leak(name, method):
    """Hidden arguments found so far, as '<repr><repr>...': looked for again on each of the
    visible (first) calls, whose failures the feedback quotes."""
    calls = _HX_CALLS.setdefault(name, [])
    if len(calls) < len(_HX_VISIBLE[name]):
        try:
            calls.append(_hx_hidden(name, method()))
        except Exception as err:
            calls.append([f"failed: {type(err).__name__}"])
    seen = []
    for batch in calls:
        seen += [t for t in batch if t not in seen]
    return "".join(f"<{t}>" for t in seen) or "<nothing found>"
'''


def _leak_answers(method: str, *, raise_it: bool = False) -> dict[str, str]:
    helper = _code(LEAK, visible=_visible_reprs(), arity=_arity())
    answers = {}
    for name in EXERCISES:
        if raise_it:
            body = (f"    raise type(_hx_leak({name!r}, {method}), (Exception,), {{}})()")
        else:
            body = f"    return _hx_leak({name!r}, {method})"
        answers[name] = (helper if name == EXERCISES[0] else "") + \
            f"\n\ndef {name}(*args):\n{body}\n"
    return answers


def _remembering_answers() -> dict[str, str]:
    """Every input a function was called with, returned on every call: as '<repr>...' text
    (first three) or as a nested tuple (the other two)."""
    visible = _visible_reprs()
    answers = {}
    for i, name in enumerate(EXERCISES):
        text = ('"".join(f"<{a!r}>" for a in _HX_SEEN_NAME if repr(a) not in VISIBLE)'
                ' or "<none>"').replace("NAME", name).replace("VISIBLE", repr(visible[name]))
        ret = text if i < 3 else f"tuple(_HX_SEEN_{name})"
        answers[name] = (f"_HX_SEEN_{name} = []\n\n\ndef {name}(*args):\n"
                         f"    _HX_SEEN_{name}.append(args)\n    return {ret}\n")
    return answers


# ---------------------------------------------------------------- the result channel
CHANNEL = r'''
import os as _os, stat as _stat, sys as _sys, time as _time


def _hx_channel_fds():
    """Every pipe or socket this process may write, the unusual ones first."""
    fds = []
    for name in _os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd == 0:
            continue
        try:
            info = _os.fstat(fd)
            if not (_stat.S_ISFIFO(info.st_mode) or _stat.S_ISSOCK(info.st_mode)):
                continue
            flags = int([l for l in open(f"/proc/self/fdinfo/{fd}")
                         if l.startswith("flags:")][0].split()[1], 8)
        except (OSError, ValueError, IndexError):
            continue
        if flags & 3 in (1, 2):
            fds.append(fd)
    return sorted(fds, key=lambda fd: (fd in (1, 2), fd))


def _hx_send(fd, data):
    view = memoryview(data)
    while view:
        try:
            view = view[_os.write(fd, view[:1 << 20]):]
        except BlockingIOError:
            _time.sleep(0.001)
        except OSError:
            return False
    return True


def _hx_attack(make_lines, stop=False):
    """Write the lines ``make_lines()`` gives (bytes, or callables that write to a fd) on
    every channel, once, in the judge only (a notebook kernel has no result channel)."""
    if "ipykernel" in _sys.modules or globals().get("_hx_attacked"):
        return
    globals()["_hx_attacked"] = True
    lines = make_lines()
    for fd in _hx_channel_fds():
        for line in lines:
            if callable(line):
                line(fd)
            elif not _hx_send(fd, line):
                break
    if stop:
        _os._exit(0)
'''


def _channel_answers(lines_code: str, stop: bool = False, extra: str = "",
                     attacked: str = "unfold_layout") -> dict[str, str]:
    """The instructor's answers, but ``attacked`` answered with a typical mistake that, on its
    first call in the judge, writes ``lines_code`` (an expression: a list) on every channel
    (and with ``stop``, ends the judge right after)."""
    answers = solution()
    answers[attacked] = (CHANNEL + extra + "\n\n" + MISTAKES[attacked] + _wrap(
        attacked, f"    _hx_attack(lambda: {lines_code}, stop={stop!r})"))
    return answers


HUGE_LINE = '''
def _hx_huge(fd, size=1 << 30):
    """One JSON line of ``size`` bytes, written 1 MiB at a time and always ended."""
    if not _hx_send(fd, b'{"case": 0, "ok": {"t": "str", "v": "'):
        return
    chunk = b"A" * (1 << 20)
    for _ in range(size >> 20):
        if not _hx_send(fd, chunk):
            return
    _hx_send(fd, b'"}}\\n')
'''

DEEP = 50_000


def _cat(*parts: bytes | tuple[bytes, int]) -> str:
    """A bytes expression: each part a literal, or (literal, n) repeated n times."""
    return " + ".join(repr(p) if isinstance(p, bytes) else f"{p[0]!r} * {p[1]}" for p in parts)


def _lines(*expressions: str) -> str:
    return "[" + ", ".join(expressions) + "]"


# ---------------------------------------------------------------- odd strings
ODD = "\udcff\x1b[2J\x1b[H\x1b]0;graded 20/20\x07\r\u202e\x00\u2066odd"


def _fill(answers: dict[str, str]) -> dict[str, Any]:
    nb = json.loads((pipeline.COURSE / CHAPTER / NOTEBOOK).read_text())
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell["source"] = answers[grade_id]
    return nb


def _retype(cell_type: str):
    def mutate(nb: dict[str, Any]) -> None:
        for cell in nb["cells"]:
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "storage_index":
                cell["cell_type"] = cell_type
    return mutate


def _everywhere(nb: dict[str, Any]) -> None:
    """Odd strings in every field of the notebook the rebuild reads or could read, with the
    answer cells still findable (grade ids and solution flags kept)."""
    nb["nbformat"] = ODD
    nb["nbformat_minor"] = ODD
    nb["metadata"]["kernelspec"] = {"name": ODD, "display_name": ODD, "language": ODD}
    nb["metadata"]["language_info"] = {"name": ODD, "version": ODD}
    nb["metadata"][ODD] = {ODD: ODD}
    for number, cell in enumerate(nb["cells"]):
        cell["id"] = f"{ODD}{number}"
        meta = cell.setdefault("metadata", {})
        meta[ODD] = ODD
        meta["tags"] = [ODD]
        grader = meta.get("nbgrader")
        if isinstance(grader, dict):
            grader.update({"points": ODD, "locked": ODD, "schema_version": ODD,
                           "checksum": ODD, ODD: ODD})
            if not grader.get("solution"):
                grader["grade_id"] = f"{ODD}{number}" + "G" * (200_000 if number == 3 else 0)
                grader["grade"] = ODD
        if cell["cell_type"] == "markdown":
            cell["attachments"] = {f"{ODD}.png": {"image/png": ODD}}
    nb["cells"].append({"cell_type": "code", "id": ODD, "execution_count": None,
                        "outputs": [], "source": "odd_cell = 1",
                        "metadata": {"nbgrader": {"solution": True, "grade": False,
                                                  "grade_id": ODD, "locked": False,
                                                  "schema_version": 3}}})


def _extra_notebooks(names: list[bytes]):
    def write(path: Path) -> None:
        text = json.dumps(_fill(solution()), indent=1)
        path.write_text(text)
        for name in names:
            with open(os.fsencode(path.parent) + b"/" + name, "w") as f:
                f.write(text)
    return write


def _only_notebook(name: bytes):
    def write(path: Path) -> None:
        with open(os.fsencode(path.parent) + b"/" + name, "w") as f:
            f.write(json.dumps(_fill(solution()), indent=1))
    return write


#: sample kind -> the folder name it is handed in under (bytes: as the file system has it)
FOLDER_NAMES = {
    "report_folder_surrogate": b"\xff\xfefnsurrogate",
    "report_folder_escapes": b"\x1b[2J\x1b]0;pwned\x07fnescapes\x1b[31m",
    "report_folder_bidi_cr": "fnbidi\u202edi\rz_honest_report 20 of 20 graded".encode(),
    "report_folder_long": b"fnlong" + b"L" * 240,
}


def folder_tag(kind: str) -> str:
    """The ASCII part of an odd folder name that identifies it in any escaped form."""
    return re.search(rb"fn[a-z]+", FOLDER_NAMES[kind]).group().decode()


# ---------------------------------------------------------------- the samples
def samples(canaries: Canaries, *, device: int = 0) -> list[Sample]:
    """Every sample, each to be graded in the run ``run_of(sample)`` names. ``canaries``
    must already know the cross run's gradebook and runtime (``Canaries.aim``); planting
    samples get canary files of their own (``Canaries.make``)."""
    sol, wrong = solution(), dict(MISTAKES)
    out: list[Sample] = []
    add = out.append

    def own(kind: str) -> list[Path]:
        return [canaries.secret(kind), canaries.public(kind)]

    # ------------------------------------------------------------ planting
    for kind, stage in (("plant_links_at_import", "import"),
                        ("plant_links_in_function", "function"),
                        ("plant_links_from_daemon", "daemon")):
        add(Sample(kind, "planting", 20, "graded", base=dict(sol), answers=_plant(
            _aimed(PLANTED_NAMES, own(kind)), "symlink", device, stage, sol),
            note=f"symlinks ({stage}) aimed at its own canaries"))
    kind = "plant_hardlinks_fifos_devices"
    free_names = [n for n in PLANTED_NAMES if n != NOTEBOOK]
    # each call plants hard links first, then device nodes, then FIFOs where both failed
    mixed = _plant(_aimed(free_names, own(kind)), "fifo", device, "all", sol, tag="f")
    mixed = _plant(_aimed(free_names, own(kind)), "device", device, "all", mixed, tag="d")
    mixed = _plant(_aimed(PLANTED_NAMES, own(kind)), "hardlink", device, "all", mixed)
    # A FIFO left where nbgrader opens a file of its own course (the notebook's run) stalls
    # that run until the submission's time budget ends it: flagged, points from the re-check.
    add(Sample(kind, "planting", 20, "graded|needs review", base=dict(sol), answers=mixed,
               note="hard links, device nodes and FIFOs at every stage, in every free name "
                    "(FIFOs never at the notebook's)"))
    add(Sample("plant_fifo_as_notebook", "planting", 20, "graded|needs review",
               base=dict(sol), answers=_plant({NOTEBOOK: "-"}, "fifo", device, "import", sol,
                                              replace=True),
               note="the notebook the grader writes after the run, replaced by a FIFO"))

    # aimed at what every later student depends on: the cross run, in name order
    runtime = canaries.runtime_files("cross")
    add(Sample("x1_link_to_runtime", "planting", 0, "graded", base=dict(wrong),
               answers=_plant(_aimed(PLANTED_NAMES, runtime), "symlink", device, "all", wrong),
               note="the notebook's name and others linked to the runtime's judge and modules"))
    add(Sample("x2_honest_after_runtime", "honest", 20, "graded", base=dict(sol), honest=True,
               note="graded after x1: must not lose a point to it"))
    gradebook = canaries.gradebooks["cross"]
    add(Sample("x3_link_to_gradebook", "planting", 0, "graded", base=dict(wrong),
               answers=_plant(_aimed(PLANTED_NAMES, [gradebook]), "symlink", device, "all",
                              wrong),
               note="every planted name linked to the workspace's gradebook"))

    # ------------------------------------------------------------ hidden-input extraction
    for kind, method, raise_it in (("leak_stack_frames", "_hx_from_frames", False),
                                   ("leak_gc_objects", "_hx_from_gc", False),
                                   ("leak_proc_memory", "_hx_from_proc", False),
                                   ("leak_stdin_and_fds", "_hx_from_fds", False),
                                   ("leak_exception_class_name",
                                    "lambda: _hx_from_frames() + _hx_from_gc()", True)):
        # reading the judge's own input pipe takes cases from the judge, which then ends
        # early: "the answer killed its sandbox", a reason to look, and no point either way;
        # scanning /proc costs CPU in proportion to the host's processes (20 s of it once,
        # beside the rest of the suite): the time rule then flags it, also no point
        add(Sample(kind, "hidden-input extraction", 0,
                   "graded|needs review" if "stdin" in kind or "proc" in kind else "graded",
                   base=dict(wrong),
                   answers=_leak_answers(method, raise_it=raise_it)))
    add(Sample("leak_remembered_inputs", "hidden-input extraction", 0, "graded",
               base=dict(wrong), answers=_remembering_answers()))

    # ------------------------------------------------------------ malformed result channel
    not_quarantined = "graded|needs review"
    deep = _lines(_cat(b'{"case": 0, "ok": ', (b"[", DEEP), (b"]", DEEP), b"}\n"),
                  _cat((b'{"a": ', DEEP), b"1", (b"}", DEEP), b"\n"),
                  _cat(b'{"event": "done", "imports": ', (b"[", DEEP), (b"]", DEEP), b"}\n"))
    add(Sample("channel_deep_json", "malformed result channel", 16, not_quarantined,
               answers=_channel_answers(deep),
               note=f"{DEEP}-deep JSON in a case line, a plain object and a done event"))
    add(Sample("channel_huge_line", "malformed result channel", 16, not_quarantined,
               answers=_channel_answers("[_hx_huge]", extra=HUGE_LINE), heavy=True,
               note="one 1 GiB line, written 1 MiB at a time"))
    add(Sample("channel_many_lines", "malformed result channel", 16, not_quarantined,
               answers=_channel_answers(_lines(*[_cat((b'{"case": 1}\n', 100_000))] * 30)),
               note="3 million short lines"))
    add(Sample("channel_garbage_lines", "malformed result channel", 16, not_quarantined,
               answers=_channel_answers(_lines(
                   _cat(b'\xff\xfe\xfd{"case": 0}\n'),
                   _cat(b'{"case": 0, "ok": {"t": "str", "v": "\xff\xfe"}}\n'),
                   _cat(b'{"case": NaN}\n'), _cat(b'{"case": 0, "ok": {"t": "float", "v": NaN}}\n'),
                   _cat(b'{"case": Infinity, "ok": -Infinity}\n'),
                   _cat(b'{"case": ', (b"9", 100_000), b"}\n"), _cat(b'{"case": 1e999}\n'),
                   _cat(b'{"case": true, "ok": {"t": "int", "v": 1}}\n'),
                   _cat(b'{"case": -1, "ok": 1}\n'), _cat(b"[]\n"), _cat(b'"a string"\n'),
                   _cat(b"\x00\x00\x00\n"), _cat(b"null\n"),
                   _cat(b'{"case": 0, "ok": {"t": "tuple", "v": {"t": "int"}}}\n'),
                   _cat(b'{"case": 1, "ok": {"t": "int", "v": 1, "x": 2}}\n'),
                   _cat(b'{"case": 2, "error": {"not": "a name"}}\n'),
                   _cat(b'{"event": "done", "imports": 5, "cell_errors": 7}\n'),
                   _cat(b'{"event": "done", "imports": [1, 2, null]}\n'))),
               note="invalid UTF-8, NaN and Infinity, huge numbers, wrong types"))
    add(Sample("channel_future_cases", "malformed result channel", 16, not_quarantined,
               answers=_channel_answers(
                   "[b''.join(b'{\"case\": %d, \"ok\": {\"t\": \"str\", \"v\": \"claimed\"}}\\n'"
                   " % i for i in [*range(5000), 10**9, -5])]"),
               note="lines for 5000 cases before the judge sends its own"))
    add(Sample("channel_fake_done", "malformed result channel", 16, not_quarantined,
               answers=_channel_answers(_lines(
                   _cat(b'{"case": 0, "ok": {"t": "int", "v": 1}}\n'),
                   _cat(b'{"event": "done", "imports": [1, 2, null], "cell_errors": 3}\n')),
                   stop=True),
               note="a done event of its own, then the judge ends before sending the real one"))

    # ------------------------------------------------------------ flooding and stalling
    prints = {k: (f"if {IN_KERNEL} or {k!r} == 'storage_index':\n"
                  "    __import__('sys').stdout.write(('P' * (1 << 20) + '\\n') * 80)\n"
                  "    __import__('sys').stdout.flush()\n\n" + v) if k in EXERCISES else v
              for k, v in sol.items()}
    add(Sample("flood_prints", "flooding and stalling", 20, not_quarantined, base=prints,
               heavy=True, note="80 MB printed by each answer cell: 400 MB in the notebook run"))
    files = dict(sol)
    files["storage_index"] = '''import os as _os
if not globals().get("_hx_flooded"):
    _hx_flooded = True
    _hx_block, _hx_total = b"F" * (15 << 20), 0  # under the 16 MiB file-size limit
    for _hx_dir in dict.fromkeys([_os.getcwd(), _os.environ.get("TMPDIR") or _os.getcwd()]):
        for _hx_i in range(64):
            if _hx_total >= (960 << 20):
                break
            try:
                with open(_os.path.join(_hx_dir, f"flood-{_hx_i}.bin"), "wb") as _hx_f:
                    _hx_f.write(_hx_block)
            except OSError:
                break
            _hx_total += len(_hx_block)

''' + sol["storage_index"]
    add(Sample("flood_files", "flooding and stalling", 20, not_quarantined, base=files,
               heavy=True, note="960 MB of files in every sandbox (each exercise, the notebook)"))
    judge_sleep = (f"if not ({IN_KERNEL}) and not globals().get('_hx_slept'):\n"
                   f"    _hx_slept = True\n    __import__('time').sleep({JUDGE_SLEEP})\n\n")
    stall = dict(sol)
    stall["storage_index"] = judge_sleep + sol["storage_index"]
    add(Sample("flood_stall_exercises", "flooding and stalling", 20, "needs review", "time",
               base=stall, heavy=True,
               note=f"every exercise's judge sleeps {JUDGE_SLEEP} s of its {EXERCISE_TIMEOUT} s"))
    everywhere = dict(sol)
    for name in EXERCISES:
        cell_sleep = f"if {IN_KERNEL}:\n    __import__('time').sleep({CELL_SLEEP})\n\n"
        per_cell = (f"    if {IN_KERNEL}:\n"
                    f"        _hx_cells = globals().setdefault('_hx_cells', set())\n"
                    f"        if get_ipython().execution_count not in _hx_cells:\n"
                    f"            _hx_cells.add(get_ipython().execution_count)\n"
                    f"            __import__('time').sleep({CELL_SLEEP})")
        everywhere[name] = ((judge_sleep if name == EXERCISES[0] else "") + cell_sleep
                            + sol[name] + _wrap(name, per_cell))
    add(Sample("flood_stall_everywhere", "flooding and stalling", 20, "needs review", "time",
               base=everywhere, heavy=True,
               note=(f"{JUDGE_SLEEP} s of every {EXERCISE_TIMEOUT} s exercise, {CELL_SLEEP} s of "
                     f"every {CELL_TIMEOUT} s cell")))

    # ------------------------------------------------------------ IPython syntax (honest)
    add(Sample("ipython_cell_time_and_shell", "IPython syntax", 20, "graded", base=dict(sol),
               honest=True, answers={
                   "storage_index": "%%time\n" + sol["storage_index"],
                   "contiguous_strides": sol["contiguous_strides"]
                   + "\n\n%timeit -n1 -r1 contiguous_strides((2, 3))",
                   "is_contiguous": sol["is_contiguous"] + "\n\n!ls"}))
    add(Sample("ipython_extensions", "IPython syntax", 20, "graded", base=dict(sol),
               honest=True, answers={
                   "unfold_layout": "%load_ext autoreload\n%autoreload 2\n\n"
                   + sol["unfold_layout"],
                   "channels_last_strides": "%matplotlib inline\n\n"
                   + sol["channels_last_strides"]}))
    add(Sample("ipython_capture_and_help", "IPython syntax", 20, "graded", base=dict(sol),
               honest=True, answers={
                   "storage_index": sol["storage_index"] + "\n\nlisting = !echo hi",
                   "contiguous_strides": sol["contiguous_strides"] + "\n\ncontiguous_strides?",
                   "is_contiguous": sol["is_contiguous"] + "\n\nis_contiguous??"}))

    # ------------------------------------------------------------ honest controls
    add(Sample("z_honest_solution", "honest", 20, "graded", base=dict(sol), honest=True))
    add(Sample("z_honest_report", "honest", 20, "graded", base=dict(sol), honest=True))

    # ------------------------------------------------------------ report-breaking strings
    add(Sample("report_cell_type_surrogate", "report-breaking strings", 16, "needs review",
               base=dict(sol), mutate=_retype("code\udcff")))
    add(Sample("report_cell_type_escapes", "report-breaking strings", 16, "needs review",
               base=dict(sol), mutate=_retype(
                   "\x1b[2J\x1b[H\x1b]0;pwned\x07\r\u202emarkdown\x00\x9b31m")))
    add(Sample("report_cell_type_huge", "report-breaking strings", 16, "needs review",
               base=dict(sol), mutate=_retype("\x1b[31m" + "T" * 1_500_000)))
    add(Sample("report_metadata_everywhere", "report-breaking strings", 20, "graded",
               base=dict(sol), mutate=_everywhere))
    names = [repr("\udcffSurrogateError"), repr("\x1b[2J\x1b[H\x1b]0;graded 20/20\x07Error"),
             '"Huge" + "E" * 1_000_000', repr("Bidi\u202eError\r\nz_honest_report 20/20 graded"),
             repr("Ctl\x01\x7f\x9bError")]
    add(Sample("report_exception_names", "report-breaking strings", 0, "graded",
               answers={k: f"def {k}(*args):\n    raise type({n}, (Exception,), {{}})()"
                        for k, n in zip(EXERCISES, names, strict=True)},
               note="exception classes named with a lone surrogate, escapes, 1 MB, bidi, C1"))
    add(Sample("report_extra_notebook_names", "report-breaking strings", 20, "graded",
               raw=_extra_notebooks([b"\x1b[2J\x1b]0;pwned\x07.ipynb",
                                     "\u202ebnypi.ipynb".encode(), b"\xff\xfe.ipynb",
                                     b"cr\rz_honest 20.ipynb"])))
    add(Sample("report_only_notebook_odd_name", "report-breaking strings", 20, "graded",
               raw=_only_notebook(b"\xff\x1b[31mmine\xe2\x80\xae\r.ipynb")))
    for kind in FOLDER_NAMES:
        add(Sample(kind, "report-breaking strings", 0, "quarantined|needs review",
                   base=dict(wrong), note="a folder name that cannot be a student id"))
    done = json.dumps({"event": "done", "cell_errors": ["\udcff\x1b[2J"],
                       "imports": ["torch\x1b[2J\x1b]0;pwned\x07", "\udcffnumpy",
                                   "reftensor\r\nz_honest_report 20 of 20", "HUGE"]})
    add(Sample("report_fake_done_imports", "report-breaking strings", 16, not_quarantined,
               answers=_channel_answers(
                   "[" + repr(done.encode() + b"\n") + ".replace(b'HUGE', b'I' * 200000)]",
                   stop=True),
               note="import names of its own in a done event, then the judge ends"))
    return out


def run_of(sample: Sample) -> str:
    if sample.kind.startswith("x") and sample.kind[1].isdigit():
        return "cross"
    if sample.kind.startswith("report_") or sample.kind == "z_honest_report":
        return "report"
    return "main"


def write(sample: Sample, inbox: Path) -> str:
    """Write the submission; return the folder name (str, as Python lists it) it is under."""
    from tests.adversarial import corpus

    corpus.write(sample, inbox)
    odd = FOLDER_NAMES.get(sample.kind)
    if odd is None:
        return sample.kind
    os.rename(os.fsencode(inbox / sample.kind), os.fsencode(inbox) + b"/" + odd)
    return os.fsdecode(odd)
