"""The instructor's command line: ``python -m autograder <command>``.

    release [--publish CHAPTER]     regenerate course/ from solutions/ (no gradebook): the
                                    notebooks and the student edition of reftensor; with
                                    --publish, first add CHAPTER to autograder/course/published.txt
    edition [--out DIR] [--published CHAPTER ...]
                                    write the student edition of reftensor to DIR/reftensor
                                    (graded bodies stubbed; a published chapter's kept)
    collect --exchange X --course ID --chapter C --into S [--due T] [--late RULE] [--roster R]
                                    as root, copy C's submissions from nbgrader's exchange
                                    (X/ID/inbound) into S: only a folder its student owns
                                    counts; its time is the server's (ctime), late past T
                                    (ISO 8601 with a zone); S/collected.json records both
    release-feedback --workspace W --submissions S --chapter C [--exchange X --course ID]
                                    as root, after grade (and feedback): each collected
                                    student's page where nbgrader's Fetch Feedback finds it,
                                    named by that submission's secret
    grade --workspace W --submissions S [--chapter C] [--workers N]
          [--scheduler local:N|ADDRESS [--tls-dir D]]
                                    grade S/<student>/<chapter>/ for every student: rebuild,
                                    sandboxed trusted re-check, nbgrader, feedback,
                                    W/grades.csv with each submission's state; with
                                    --scheduler, one task per submission on a dask cluster
    certs --out D                   TLS certificates for a grading cluster (give D to the
                                    scheduler's and workers' machines, and nobody else)
    feedback --workspace W          HTML feedback again (after manual grading)
    export --workspace W [--to F]   nbgrader's CSV of the gradebook (manual grades included)
    formgrader --workspace W        JupyterLab with nbgrader's Formgrader on the workspace, to
                                    grade written answers by hand
    formgrader-sync --workspace W --chapter C [--hub-etc D]
                                    as root, on a hub: take the grades and comments given by
                                    hand in the course's Formgrader service into W, then give
                                    it W's gradebook and C's autograded notebooks
    site [--out DIR] [--reference all|published|none] [--capstone full|short|none]
                                    the website for self-learners; the reference pieces
                                    behind folds (none: for a class still being graded);
                                    chapter 10's full run (about a minute on 2 cores)
    demo [--out DIR] [--no-site]    all of the above on the bundled sample classes (chapter 1
                                    and the capstone)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from autograder.classroom import demo
from autograder.course import edition, pipeline


def _grade(args: argparse.Namespace) -> int:
    from autograder.classroom import feedback
    from autograder.grading import class_run

    workspace, chapter = Path(args.workspace).resolve(), args.chapter
    from autograder.grading.cluster import ClusterUnreachable, SchedulerLost

    tls_dir = Path(args.tls_dir).resolve() if args.tls_dir else None
    if args.scheduler:
        # dask logs each lost connection with its traceback; what went wrong, and what to do,
        # is the one line below
        import logging

        for name in ("distributed", "tornado", "asyncio"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        outcomes = class_run.grade_class(workspace, Path(args.submissions).resolve(), chapter,
                                           workers=args.workers, scheduler=args.scheduler,
                                           tls_dir=tls_dir)
    except SchedulerLost as err:
        print(f"grade: {err}; run the command again to grade them all", file=sys.stderr)
        return 1
    except ClusterUnreachable as err:
        print(f"grade: {err}", file=sys.stderr)
        return 2
    feedback.generate(workspace, chapter)
    print(demo.table(outcomes))
    print(f"\nfeedback: {workspace / 'feedback'}\ngrades:   {workspace / 'grades.csv'}"
          f"\nreport:   {workspace / 'report.json'}")
    return 0


def _collect(args: argparse.Namespace) -> int:
    import datetime as dt

    from autograder.classroom import collect

    if os.geteuid() != 0:
        print("not root: the exchange's files of other users may be unreadable, and the "
              "collected folder is only as private as this user's", file=sys.stderr)
    due = None
    if args.due:
        try:
            due = dt.datetime.fromisoformat(args.due)
        except ValueError:
            print(f"--due: not an ISO 8601 date and time: {args.due!r}", file=sys.stderr)
            return 2
    try:
        roster = collect.read_roster(Path(args.roster)) if args.roster else None
        result = collect.collect(Path(args.exchange), args.course, args.chapter,
                                 Path(args.into).resolve(), due=due, late_rule=args.late,
                                 roster=roster)
    except (ValueError, OSError) as err:
        print(f"collect: {err}", file=sys.stderr)
        return 2
    print(collect.table(result))
    print(f"\ncollected: {len(result.submissions)}, refused: {len(result.refused)} "
          f"(of {result.entries} inbound entries)"
          f"\nrecord:    {Path(args.into).resolve() / 'collected.json'}")
    unknown = result.unknown()
    if unknown:
        print(f"collect: the state of {len(unknown)} student(s) of the roster is unknown: "
              f"{', '.join(unknown[:10])}", file=sys.stderr)
        return 1
    return 0


def _formgrader(args: argparse.Namespace) -> int:
    """Start JupyterLab in the workspace, where nbgrader finds the course's configuration
    (``nbgrader_config.py``, written by grading); as root it adds ``--allow-root``."""
    workspace = Path(args.workspace).resolve()
    if not (workspace / "nbgrader_config.py").is_file():
        print(f"{workspace} is not a grading workspace yet: grade a chapter into it first",
              file=sys.stderr)
        return 2
    cmd = [sys.executable, "-m", "jupyter", "lab", "--ServerApp.root_dir=."]
    if os.geteuid() == 0:
        print("running as root, so JupyterLab is started with --allow-root")
        cmd.append("--allow-root")
    print("Formgrader: open the 'Nbgrader > Formgrader' menu in JupyterLab, or /formgrader")
    from autograder.classroom import graders

    os.chdir(workspace)
    os.execve(sys.executable, cmd, graders.formgrader_environment(dict(os.environ)))
    return 0  # not reached


def _formgrader_sync(args: argparse.Namespace) -> int:
    from autograder.classroom import graders

    if os.geteuid() != 0:
        print("formgrader-sync: run as root (it runs steps as the grader account)",
              file=sys.stderr)
        return 2
    try:
        taken, given = graders.sync(Path(args.workspace).resolve(), args.chapter,
                                    Path(args.hub_etc))
    except (OSError, ValueError, KeyError, graders.GraderAccountError) as err:
        print(f"formgrader-sync: {err}", file=sys.stderr)
        return 2
    for line in taken.refused:
        print(f"refused: {line}")
    print(f"taken from Formgrader: {taken.grades} grades, {taken.comments} comments, "
          f"{taken.cleared} cleared; given to it: the gradebook and {given.notebooks} "
          f"autograded notebooks of {args.chapter}"
          + (f"; {given.kept} saved there during the sync kept (and taken)"
             if given.kept else ""))
    if taken.grades or taken.comments or taken.cleared:
        print("then: feedback, and release-feedback")
    return 0


def _demo(args: argparse.Namespace) -> int:
    out = Path(args.out).resolve()
    summary = demo.run(out, site=not args.no_site, workers=args.workers,
                       progress=lambda m: print(m, flush=True))
    print()
    print(demo.table(summary["outcomes"]))
    mismatches = demo.compare_with_recorded(summary["outcomes"])
    if summary["capstone"] is not None:
        print(f"\n{demo.CAPSTONE}:")
        print(demo.table(summary["capstone"]))
        mismatches += demo.compare_with_recorded(summary["capstone"], demo.CAPSTONE)
    print()
    print(f"release:    {pipeline.COURSE}")
    print(f"workspace:  {summary['workspace']}  (gradebook.db, archive/, autograded/)")
    print(f"feedback:   {summary['feedback']}")
    print(f"grades:     {summary['grades_csv']}  (with each submission's state)")
    if summary["site"]:
        print(f"website:    {summary['site']}")
    print(f"took {summary['seconds']:.0f} s")
    if mismatches:
        print("DIFFERS FROM THE RECORDED POINTS:\n  " + "\n  ".join(mismatches))
        return 1
    print("every score and state matches the recorded ones")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("release", help="regenerate course/ from solutions/")
    r.add_argument("--publish", action="append", default=[], metavar="CHAPTER",
                   help="publish this chapter's graded pieces (after its deadline)")
    ed = sub.add_parser("edition", help="write the student edition of reftensor")
    ed.add_argument("--out", default=str(pipeline.REPO / "build" / "student-edition"))
    ed.add_argument("--published", nargs="*", default=None, metavar="CHAPTER",
                    help="chapters to publish (default: autograder/course/published.txt)")
    c = sub.add_parser("collect", help="collect submissions from nbgrader's exchange, as root")
    c.add_argument("--exchange", default="/srv/nbgrader/exchange")
    c.add_argument("--course", default="reftensor")
    c.add_argument("--chapter", required=True)
    c.add_argument("--into", required=True)
    c.add_argument("--due", help="due date, ISO 8601 with a zone: 2026-12-01T23:59:00+00:00")
    c.add_argument("--late", choices=["mark", "use-on-time", "refuse"], default="mark")
    c.add_argument("--roster", help="the class: an nbgrader gradebook (.db, its students) or a "
                   "file of student ids, one a line; every one is reported, and an unknown "
                   "state exits 1")
    g = sub.add_parser("grade", help="autograde a class")
    g.add_argument("--workspace", required=True)
    g.add_argument("--submissions", required=True)
    g.add_argument("--chapter", default="ch01_storage")
    g.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    g.add_argument("--scheduler", help="local:N (a LocalCluster of N workers) or the address "
                   "of a dask scheduler: one task per submission on that cluster")
    g.add_argument("--tls-dir", help="the cluster's certificates (python -m autograder certs)")
    rf = sub.add_parser("release-feedback", help="feedback pages into nbgrader's exchange")
    rf.add_argument("--workspace", required=True)
    rf.add_argument("--submissions", required=True, help="the folder collect wrote")
    rf.add_argument("--chapter", required=True)
    rf.add_argument("--exchange", default="/srv/nbgrader/exchange")
    rf.add_argument("--course", default="reftensor")
    ce = sub.add_parser("certs", help="TLS certificates for a grading cluster")
    ce.add_argument("--out", required=True)
    f = sub.add_parser("feedback", help="HTML feedback for a chapter")
    f.add_argument("--workspace", required=True)
    f.add_argument("--chapter", default="ch01_storage")
    e = sub.add_parser("export", help="grades as CSV")
    e.add_argument("--workspace", required=True)
    e.add_argument("--to")
    fg = sub.add_parser("formgrader", help="Formgrader on a grading workspace")
    fg.add_argument("--workspace", required=True)
    fs = sub.add_parser("formgrader-sync", help="the hub's Formgrader and the workspace")
    fs.add_argument("--workspace", required=True)
    fs.add_argument("--chapter", required=True)
    fs.add_argument("--hub-etc", default="/etc/reftensor-hub",
                    help="where setup_course.sh wrote course.json")
    s = sub.add_parser("site", help="build the website")
    s.add_argument("--out", default=str(pipeline.REPO / "build" / "site"))
    s.add_argument("--reference", choices=["all", "published", "none"], default="all")
    s.add_argument("--capstone", choices=["full", "short", "none"], default="full",
                   help="chapter 10's full run: every run to its end, its first steps, none")
    d = sub.add_parser("demo", help="grade the bundled sample classes")
    d.add_argument("--out", default=str(pipeline.REPO / "build" / "demo"))
    d.add_argument("--no-site", action="store_true")
    d.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)

    if args.command == "release":
        for chapter in args.publish:
            added = edition.publish(chapter)
            print(f"{'published' if added else 'already published'}: {chapter}")
        for path in pipeline.release():
            print(f"wrote {path.relative_to(pipeline.REPO)}")
        return 0
    if args.command == "edition":
        out = Path(args.out).resolve()
        chosen = edition.published_chapters() if args.published is None else args.published
        stubbed = edition.write_student_edition(out, published=chosen)
        print(f"wrote {out / 'reftensor'}: {len(stubbed)} graded pieces stubbed")
        return 0
    if args.command == "collect":
        return _collect(args)
    if args.command == "grade":
        return _grade(args)
    if args.command == "release-feedback":
        from autograder.classroom import feedback

        try:
            done = feedback.release_feedback(
                Path(args.workspace).resolve(), Path(args.submissions).resolve(),
                Path(args.exchange), args.course, args.chapter)
        except (ValueError, OSError) as err:
            print(f"release-feedback: {err}", file=sys.stderr)
            return 2
        for student, what in done:
            print(f"{student:<24} {what}")
        return 0
    if args.command == "certs":
        from autograder.classroom import certificates

        for path in certificates.write_certificates(Path(args.out).resolve()):
            print(path)
        return 0
    if args.command == "feedback":
        from autograder.classroom import feedback

        print(feedback.generate(Path(args.workspace).resolve(), args.chapter))
        return 0
    if args.command == "export":
        print(pipeline.export(Path(args.workspace).resolve(), Path(args.to) if args.to else None))
        return 0
    if args.command == "formgrader":
        return _formgrader(args)
    if args.command == "formgrader-sync":
        return _formgrader_sync(args)
    if args.command == "site":
        from autograder.course.site import build_site

        print(build_site(pipeline.COURSE, Path(args.out).resolve(), args.reference,
                         args.capstone))
        return 0
    return _demo(args)


if __name__ == "__main__":
    sys.exit(main())
