"""The adversarial suite: every crafted submission, graded by the real grader, ends as
recorded; honest controls lose nothing; and the measures the grading issue asks for are 0.

Also, for each defence, a test switches that one defence off and shows the attack it stops
getting through."""

from __future__ import annotations

import json
import os
import secrets
import socket
import threading
import time
from pathlib import Path

import pytest

from autograder.classroom import feedback
from autograder.course import pipeline
from autograder.grading import class_run, grade
from autograder.sandbox import bwrap as sandbox
from tests import tiers
from tests.adversarial import corpus

pytestmark = [
    pytest.mark.grading,
    pytest.mark.slow,
    pytest.mark.skipif(not sandbox.status().available,
                       reason=f"no sandbox: {sandbox.status().reason}"),
    # the fast tier grades chapter 1 less its demo cells (tests/conftest.py, tests/lean.py)
    pytest.mark.usefixtures("lean_chapter_1"),
]

FAST = grade.Settings(exercise_timeout=6, cell_timeout=10)
# the heavy kinds' exercises stop sooner (a loop or a sleep costs its whole limit), but not
# so soon that an answer the sandbox's limits stop (huge_file's 64 MiB of writes) times out
# first on a machine the other worker loads: 4 s did, once, in each tier
HEAVY = grade.Settings(exercise_timeout=8, cell_timeout=5)
# REFTENSOR_ADVERSARIAL_SCHEDULER=local:2 grades the corpus through the cluster path
# (``grade --scheduler``, autograder/grading/cluster.py) instead, with the heavy samples on a
# cluster of one worker; the measures then go to adversarial-measures-cluster.json, to compare
SCHEDULER = os.environ.get("REFTENSOR_ADVERSARIAL_SCHEDULER") or None
MEASURES = pipeline.REPO / "build" / ("adversarial-measures-cluster.json" if SCHEDULER
                                      else "adversarial-measures.json")
#: the corpus the module grades: in the fast tier the ten honest controls are graded in four
#: submissions (``corpus.fast_samples``), in the full tier each alone
SAMPLES = tiers.pick(corpus.fast_samples, corpus.samples)
#: the seed of every grading run of this module: drawn afresh by each process, and one for
#: all its runs, so that it draws their cases and computes torch's answers for them once
#: (``trusted._exercise_plan``), not once for each run
SEED = secrets.randbits(63)


class Listeners:
    """A TCP and a UDP listener on loopback; the network samples must never reach them."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.tcp.settimeout(0.2)
        self.udp.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.tcp.accept()
                self.received.append(conn.recv(100) or b"<connected>")
                conn.close()
            except OSError:
                pass
            try:
                self.received.append(self.udp.recv(100))
            except OSError:
                pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        self.tcp.close()
        self.udp.close()


@pytest.fixture(scope="module")
def graded(tmp_path_factory, lean_chapter_1):
    root = tmp_path_factory.mktemp("adversarial")
    net = Listeners()
    samples = SAMPLES(listener_port=net.tcp.getsockname()[1],
                      udp_port=net.udp.getsockname()[1],
                      archive=str(root / "ws-light" / "archive"))
    corpus.build(root / "light", [s for s in samples if not s.heavy])
    corpus.build(root / "heavy", [s for s in samples if s.heavy])
    outcomes = class_run.grade_class(root / "ws-light", root / "light", corpus.CHAPTER, workers=2,
                                 progress=False, settings=FAST, scheduler=SCHEDULER,
                                 seed=SEED)
    # resource exhaustion, with the shorter limits: two at a time (each sandbox running at
    # once has a user, so a process limit, of its own)
    outcomes += class_run.grade_class(root / "ws-heavy", root / "heavy", corpus.CHAPTER,
                                  workers=2, progress=False, settings=HEAVY,
                                  scheduler="local:2" if SCHEDULER else None, seed=SEED)
    for ws in ("ws-light", "ws-heavy"):
        feedback.generate(root / ws, corpus.CHAPTER)
    net.close()
    result = {"samples": {s.kind: s for s in samples},
              "outcomes": {o.student: o for o in outcomes}, "root": root,
              "received": net.received, "leftovers": _survivors()}
    _write_measures(result)
    return result


def _survivors(patience: float = 10.0) -> list[int]:
    """Processes of the grader user still alive outside a running sandbox once their
    namespaces had time to die (other tests' sandboxes may be running beside this module)."""
    deadline = time.monotonic() + patience
    while (left := sandbox.escaped_processes()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def _write_measures(result) -> None:
    samples, outcomes = result["samples"], result["outcomes"]
    attacks = [k for k, s in samples.items() if not s.honest]
    honest = [k for k, s in samples.items() if s.honest]
    seconds = sorted(o.seconds for o in outcomes.values() if o.state != "quarantined")
    measures = {
        "submissions": len(outcomes),
        "attack kinds": len(attacks),
        "categories": len({samples[k].category for k in attacks}),
        "honest controls": len(honest),
        "wrongly awarded points": sum(max(0.0, outcomes[k].total - samples[k].total)
                                      for k in attacks if k in outcomes),
        "honest points lost": sum(20 - outcomes[k].total for k in honest if k in outcomes),
        "batch aborts": len(samples) - len(outcomes),
        "silent zeros": sum(1 for k, o in outcomes.items() if o.state == "graded"
                            and o.total == 0 and "graded" not in samples[k].state),
        "cross-student changes": sum(any("audit: other" in r for r in o.reasons)
                                     for o in outcomes.values()),
        "surviving processes": len(result["leftovers"]),
        "network reachability": len(result["received"]),
        "seconds per submission (median)": round(seconds[len(seconds) // 2], 1),
        "seconds per submission (p95)": round(seconds[int(len(seconds) * 0.95) - 1], 1),
    }
    MEASURES.parent.mkdir(exist_ok=True)
    MEASURES.write_text(json.dumps(measures, indent=1))


def test_the_corpus_is_big_enough():
    samples = corpus.samples()
    attacks = [s for s in samples if not s.honest]
    assert len({s.kind for s in attacks}) >= 30
    assert len({s.category for s in attacks}) >= 8
    assert len([s for s in samples if s.honest]) >= 10


@pytest.mark.parametrize("kind", [s.kind for s in SAMPLES()])
def test_sample_ends_as_recorded(graded, kind):
    sample, outcome = graded["samples"][kind], graded["outcomes"][kind]
    assert outcome.total == sample.total, outcome.reasons
    assert outcome.state in sample.state.split("|"), outcome.reasons
    if sample.reason:
        assert any(sample.reason in r for r in outcome.reasons), outcome.reasons


@pytest.mark.full
@pytest.mark.parametrize("kind", [s.kind for s in corpus.samples()])
def test_each_kind_alone_ends_as_recorded(tmp_path, kind):
    """The full tier grades every kind in a grading run of its own as well: no kind's result
    depends on the classmates it shares the fast tier's graded class with."""
    [sample] = [s for s in corpus.samples() if s.kind == kind]
    outcome = _grade_one(tmp_path, kind, HEAVY if sample.heavy else FAST)
    assert outcome.total == sample.total, outcome.reasons
    assert outcome.state in sample.state.split("|"), outcome.reasons
    if sample.reason:
        assert any(sample.reason in r for r in outcome.reasons), outcome.reasons


def test_every_measure_is_zero(graded):
    measures = json.loads(MEASURES.read_text())
    for key in ("wrongly awarded points", "honest points lost", "batch aborts", "silent zeros",
                "cross-student changes", "surviving processes", "network reachability"):
        assert measures[key] == 0, (key, measures)


def test_nothing_reached_the_network(graded):
    assert graded["received"] == []


def test_no_sandboxed_process_survives(graded):
    assert graded["leftovers"] == []


def test_feedback_and_autograded_notebooks_hold_no_hidden_tests(graded):
    import re

    from tests.notebooks import readable_text, secret_lines

    hidden_test = re.compile(r'check\(\\?"\w+\\?", \w+, hidden=True\)')
    secrets = secret_lines(corpus.CHAPTER, solutions=False)  # students may write the same
    assert secrets                                             # code as a solution line
    for ws in ("ws-light", "ws-heavy"):
        for folder in ("autograded", "feedback"):
            for path in (graded["root"] / ws / folder).rglob("*"):
                if path.is_file():
                    text = readable_text(path)
                    assert not hidden_test.search(text) and "BEGIN HIDDEN" not in text, path
                    assert not [line for line in secrets if line in text], path


def test_every_submission_has_an_explicit_state_in_the_export(graded):
    import csv

    for ws in ("ws-light", "ws-heavy"):
        with open(graded["root"] / ws / "grades.csv") as f:
            for row in csv.DictReader(f):
                assert row["state"] in ("graded", "needs review", "quarantined")
                if row["state"] != "graded":
                    assert row["reasons"], row


# ---------------------------------------------------------------- defences switched off
#: the seed of the single-defence runs: the module's, so this process draws their cases and
#: computes torch's answers once (``trusted._exercise_plan``) for all of them
DEFENCE_SEED = SEED


def _grade_one(tmp_path: Path, kind: str, settings: grade.Settings) -> grade.Outcome:
    [sample] = [s for s in corpus.samples() if s.kind == kind]
    corpus.write(sample, tmp_path / "inbox")
    [outcome] = class_run.grade_class(tmp_path / "ws", tmp_path / "inbox", corpus.CHAPTER,
                                  progress=False, settings=settings, seed=DEFENCE_SEED)
    return outcome


DEFENCES = [
    ("rebuild", "answers_outside_answer_cells", 0),
    ("trusted", "patched_judge", 0),
    ("fresh_seed", "memorized_hidden_cases", 5),
    ("plain_data", "always_equal_object", 0),
    ("sandbox", "reads_solutions", 0),
]


@pytest.mark.parametrize("defence,kind,on_total", DEFENCES)
def test_each_defence_stops_an_attack_that_gets_through_without_it(graded, tmp_path, defence,
                                                                   kind, on_total):
    """With every defence on (the module's graded run) the attack gets ``on_total``; with
    this one defence off, it gets more."""
    from dataclasses import replace

    assert graded["outcomes"][kind].total == on_total
    off = _grade_one(tmp_path / "off", kind, replace(FAST, **{defence: False}))
    assert off.total > on_total, (defence, off.total, off.reasons)


def test_feedback_defence_keeps_hidden_tests_out(tmp_path):
    """With trusted-only feedback switched off, the feedback is the student's own run, as
    stock nbgrader makes it, and it shows the hidden tests."""
    from dataclasses import replace

    inbox = tmp_path / "inbox"
    corpus.write({s.kind: s for s in corpus.samples()}["honest_plain"], inbox)
    class_run.grade_class(tmp_path / "ws", inbox, corpus.CHAPTER, progress=False,
                      settings=replace(FAST, safe_feedback=False), seed=DEFENCE_SEED)
    feedback.generate(tmp_path / "ws", corpus.CHAPTER)
    from tests.notebooks import readable_text

    text = readable_text(tmp_path / "ws" / "feedback" / "honest_plain" / corpus.CHAPTER
                         / f"{corpus.CHAPTER}.html")
    assert 'check("storage_index", storage_index, hidden=True)' in text  # leaked; with the
    # defence on, see
    # test_feedback_and_autograded_notebooks_hold_no_hidden_tests


def test_audit_catches_a_change_to_another_students_files(tmp_path):
    """With the sandbox off, an answer reaches an earlier student's archived submission; the
    audit after that student notices. (With the sandbox on it cannot see the archive.)"""
    from dataclasses import replace

    samples = {s.kind: s for s in corpus.samples(archive=str(tmp_path / "ws" / "archive"))}
    inbox = tmp_path / "inbox"
    corpus.write(samples["honest_plain"], inbox)
    corpus.write(samples["tampers_with_earlier_students"], inbox)
    outcomes = {o.student: o for o in class_run.grade_class(
        tmp_path / "ws", inbox, corpus.CHAPTER, progress=False,
        settings=replace(FAST, sandbox=False), seed=DEFENCE_SEED)}
    assert any("audit: other students' records changed" in r
               for r in outcomes["tampers_with_earlier_students"].reasons)


def test_planted_secrets_never_reach_autograded_notebooks_or_feedback(tmp_path, monkeypatch):
    """Unique strings planted in a solution, a hidden test and the trusted references never
    appear in what students get back, even from a submission that prints all it sees."""
    import shutil
    import uuid

    import nbformat

    marks = {what: f"PLANTED-{what}-{uuid.uuid4().hex}" for what in
             ("solution", "hidden", "references")}
    solutions = tmp_path / "solutions"
    shutil.copytree(pipeline.SOLUTIONS, solutions)
    path = solutions / corpus.CHAPTER / f"{corpus.CHAPTER}.ipynb"
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if "### BEGIN SOLUTION" in cell.source and cell.cell_type == "code":
            cell.source = cell.source.replace(
                "### BEGIN SOLUTION", f"### BEGIN SOLUTION\n    # {marks['solution']}", 1)
        if "### BEGIN HIDDEN TESTS" in cell.source:
            cell.source = cell.source.replace(
                "### BEGIN HIDDEN TESTS", f"### BEGIN HIDDEN TESTS\n# {marks['hidden']}", 1)
    nbformat.write(nb, path)
    monkeypatch.setattr(pipeline, "SOLUTIONS", solutions)
    real_prepare = grade.trusted.prepare_run

    def planted_prepare(folder, names, seed=None, **kw):
        plan = real_prepare(folder, names, seed, **kw)
        refs = folder / "references.json"
        data = json.loads(refs.read_text())
        data["planted"] = marks["references"]
        refs.write_text(json.dumps(data))
        return plan

    monkeypatch.setattr(grade.trusted, "prepare_run", planted_prepare)
    inbox = tmp_path / "inbox"
    samples = {s.kind: s for s in corpus.samples()}
    for kind in ("honest_plain", "hook_copies_hidden_tests", "reads_trusted_references"):
        corpus.write(samples[kind], inbox)
    class_run.grade_class(tmp_path / "ws", inbox, corpus.CHAPTER, workers=2, progress=False,
                      settings=FAST)
    feedback.generate(tmp_path / "ws", corpus.CHAPTER)
    from tests.notebooks import readable_text

    texts = [readable_text(p) for folder in ("autograded", "feedback")
             for p in (tmp_path / "ws" / folder).rglob("*") if p.is_file()]
    assert len(texts) >= 6
    for mark in marks.values():
        assert not any(mark in t for t in texts), mark
    # the plant itself worked: the hidden mark is in the gradebook's copy of the tests
    assert marks["hidden"].encode() in (tmp_path / "ws" / "gradebook.db").read_bytes()
