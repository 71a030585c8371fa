"""The grading sandbox (autograder.sandbox): what student code can and cannot do inside it."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import textwrap
import time
from pathlib import Path

import pytest

from autograder.sandbox import bwrap as sandbox

STATE = sandbox.status()
REPO = Path(__file__).resolve().parent.parent


def _first_parts_under(root: str, paths: list[Path]) -> list[str]:
    """Names inside ``root`` that lie on the way to any of ``paths`` (sorted)."""
    return sorted({p.parts[len(Path(root).parts)] for p in paths
                   if p.is_relative_to(root) and len(p.parts) > len(Path(root).parts)})


# what the sandbox binds: the venv and the base interpreter
BOUND = [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
needs_sandbox = pytest.mark.skipif(
    not STATE.available, reason=f"grading sandbox unavailable here: {STATE.reason}")


@pytest.fixture
def outside_tmp():
    """A folder outside /tmp (inside a sandbox, /tmp is its own scratch tmpfs)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="rt-sandbox-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def python(code: str, **kwargs) -> sandbox.Result:
    """Run a Python program in the sandbox; assert it left nothing behind (no process of the
    grader user outside a sandbox that is still running: other tests' sandboxes may run
    beside this one)."""
    result = sandbox.run([sys.executable, "-c", textwrap.dedent(code)], **kwargs)
    assert sandbox.escaped_processes() == []
    return result


def lines(result: sandbox.Result) -> list[str]:
    return result.stdout.decode().split()


# ---------------------------------------------------------------------------------------------
# What it can do


@needs_sandbox
def test_numpy_scratch_output_and_readable_paths(outside_tmp: Path) -> None:
    granted = outside_tmp / "granted"
    granted.mkdir(mode=0o755)
    (granted / "data.txt").write_text("shared data")
    result = python("""
        import os, sys
        import numpy
        with open("out.txt", "w") as f:
            f.write(str(numpy.arange(4).sum()))
        print(os.getcwd(), os.environ["HOME"], os.environ["TMPDIR"], open("out.txt").read(),
              os.stat("out.txt").st_uid)
        with open(os.path.join(os.environ["GRANTED"], "data.txt")) as f:
            print("stdout", f.read().replace(" ", "_"))
        print("stderr", file=sys.stderr)
    """, readable=[granted], env={"GRANTED": str(granted)})
    assert result.returncode == 0, result.stderr
    assert int(lines(result)[4]) in STATE.uids
    assert lines(result)[:4] + lines(result)[5:] == ["/tmp", "/tmp", "/tmp", "6", "stdout",
                                                     "shared_data"]
    assert result.stderr == b"stderr\n"
    assert sorted(p.name for p in outside_tmp.iterdir()) == ["granted"]


@needs_sandbox
def test_scratch_is_private_bounded_and_gone_afterwards() -> None:
    """The only writable place is a tmpfs of Limits.scratch_mb in the sandbox's own mount
    namespace: a write past its size fails, and nothing of it is on the host."""
    import uuid

    mark = f"rt-scratch-{uuid.uuid4().hex}"
    result = python(f"""
        import os
        os.mkdir({mark!r})
        try:
            with open(os.path.join({mark!r}, "big"), "wb") as f:
                for _ in range(64):
                    f.write(b"x" * (1 << 20))
            print("written")
        except OSError as err:
            print(err.errno, os.path.getsize(os.path.join({mark!r}, "big")) // (1 << 20))
    """, limits=sandbox.Limits(scratch_mb=8))
    assert lines(result)[0] == "28", result.stderr  # ENOSPC
    assert int(lines(result)[1]) <= 8
    assert not Path("/tmp", mark).exists()


def _slab_kib() -> int:
    """The host kernel's slab memory (``Slab`` of /proc/meminfo), in KiB."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("Slab:"):
            return int(line.split()[1])
    raise AssertionError("no Slab line in /proc/meminfo")


@needs_sandbox
def test_scratch_is_bounded_in_files_too_and_so_is_the_hosts_memory() -> None:
    """Empty files cost no bytes of the tmpfs but about a KiB of the host's kernel memory
    each: the scratch tmpfs holds at most Limits.scratch_inodes files, folders and links (hard
    links too), then refuses with ENOSPC; the host's slab memory grows by a bounded amount
    while the sandbox holds them, and the files are gone with it."""
    import threading

    limits = sandbox.Limits(scratch_inodes=4096)
    before, peak, done = _slab_kib(), [0], threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _slab_kib())
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result = python("""
            import errno, os, time
            made = links = 0
            try:
                while made < 10_000_000:
                    open(f"f{made}", "w").close()
                    made += 1
            except OSError as err:
                print(errno.errorcode[err.errno], made)
            for _ in range(made // 2):
                os.unlink(f"f{_}")
            try:
                while links < 10_000_000:
                    os.link(f"f{made - 1}", f"l{links}")
                    links += 1
            except OSError as err:
                print(errno.errorcode[err.errno], links)
            time.sleep(0.5)  # held while the host is looked at
        """, limits=limits, timeout=60)
    finally:
        done.set()
        watcher.join()
    said = lines(result)
    assert said[0] == "ENOSPC" and 4000 <= int(said[1]) < 4096, (said, result.stderr)
    assert said[2] == "ENOSPC" and int(said[3]) <= int(said[1]) // 2 + 8, said  # links count
    # 4,096 inodes: a few MiB of slab (unbounded, 1.36 million files took 1.35 GB); other
    # tests' sandboxes may run beside this one, hence the margin
    assert (peak[0] - before) < 64 * 1024, f"slab grew by {(peak[0] - before) // 1024} MiB"
    # the tmpfs was mounted in the sandbox's own mount namespace: the host's folder under it
    # is empty, then and now
    assert list(sandbox._scratch_mount().iterdir()) == []

def test_readable_paths_under_tmp_are_refused(tmp_path: Path) -> None:
    if not STATE.available:
        pytest.skip(STATE.reason)
    with pytest.raises(ValueError, match="hidden by the scratch tmpfs"):
        sandbox.command(["true"], readable=[tmp_path])


@needs_sandbox
def test_pass_fds_and_input() -> None:
    read, write = os.pipe()
    result = python(f"import os, sys; os.write({write}, sys.stdin.read().encode())",
                    input=b"through stdin", pass_fds=[write])
    os.close(write)
    assert result.returncode == 0, result.stderr
    assert os.read(read, 100) == b"through stdin"
    os.close(read)


# ---------------------------------------------------------------------------------------------
# Who it runs as


@needs_sandbox
def test_runs_as_grader_without_privileges() -> None:
    result = python("""
        import os
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        print(os.getuid(), os.geteuid(), os.getgroups(), status["CapEff"].strip(),
              status["CapBnd"].strip(), status["NoNewPrivs"].strip())
        try:
            os.setuid(0)
        except PermissionError:
            print("setuid-refused")
    """)
    uid = lines(result)[0]
    assert int(uid) in STATE.uids and uid != "0"
    assert lines(result) == [uid, uid, "[]", "0" * 16, "0" * 16, "1", "setuid-refused"]


# ---------------------------------------------------------------------------------------------
# What it cannot reach


@needs_sandbox
def test_no_network() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        result = python(f"""
            import socket
            for address in [("127.0.0.1", {port}), ("127.0.0.2", {port})]:
                try:
                    socket.create_connection(address, timeout=2).close()
                    print("connected")
                except OSError as err:
                    print(type(err).__name__)
            print([name for _, name in socket.if_nameindex()])
        """)
    # the host listens on its loopback; the sandbox has a loopback of its own, and no other
    # interface, so both addresses find nobody listening
    assert lines(result) == ["ConnectionRefusedError", "ConnectionRefusedError", "['lo']"]


@needs_sandbox
def test_only_granted_paths_are_visible(tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "gradebook.db").write_text("grades")
    (tmp_path / "other-student").mkdir()
    in_repo = _first_parts_under(str(REPO), BOUND)  # e.g. ['.venv'] when the venv is inside
    in_root = _first_parts_under("/root", BOUND)  # e.g. ['.pyenv'] for a pyenv Python
    # the scratch holds nothing but the way to a Python install that lives under /tmp
    in_tmp = _first_parts_under("/tmp", BOUND)
    result = python(f"""
        import os
        def listing(path):
            return sorted(os.listdir(path)) if os.path.isdir(path) else []
        print(os.path.exists({str(REPO / "solutions")!r}),
              os.path.exists({str(REPO / "reftensor")!r}))
        print(listing({str(REPO)!r}), listing("/root"))
        print(os.path.exists({str(tmp_path)!r}))
        print(os.path.exists({str(tmp_path / "workspace" / "gradebook.db")!r}))
        print(sorted(os.listdir("/tmp")))  # a fresh scratch
        for path in ["/etc/shadow", "/root/.bashrc", "/root/.pyenv/versions"]:
            try:
                open(path).read()
                print("read")
            except OSError as err:
                print(type(err).__name__)
        try:
            import reftensor
            print("reftensor")
        except ImportError:
            print("no-reftensor")
    """)
    root_error = "IsADirectoryError" if in_root else "FileNotFoundError"
    assert lines(result) == [
        "False", "False", str(in_repo), str(in_root), "False", "False", str(in_tmp),
        "FileNotFoundError", "FileNotFoundError", root_error, "no-reftensor"]


@needs_sandbox
def test_cannot_write_outside_scratch(outside_tmp: Path) -> None:
    granted = outside_tmp / "granted"
    granted.mkdir(mode=0o755)
    granted.chmod(0o777)  # even a world-writable readable path is bound read-only
    site = next(Path(sys.prefix).glob("lib/python3*/site-packages"))
    targets = ["/x", "/etc/x", "/dev/shm/x", "/dev/x", "/proc/x", str(site / "x.py"),
               str(granted / "x"), str(Path(sys.prefix) / "x")]
    result = python(f"""
        for path in {targets!r}:
            try:
                open(path, "w").close()
                print("written", path)
            except OSError as err:
                print(type(err).__name__)
    """, readable=[granted])
    assert all(word in ("PermissionError", "OSError", "FileNotFoundError")
               for word in lines(result)), result.stdout
    assert len(lines(result)) == len(targets)
    assert list(granted.iterdir()) == []


@needs_sandbox
def test_torch_is_not_importable() -> None:
    result = python("""
        import sys
        for name in ["torch", "torch.nn", "functorch", "torchgen"]:
            try:
                __import__(name)
                print("imported", name)
            except ModuleNotFoundError:
                print("blocked")
        sys.meta_path.pop(0)  # without the blocker, the masked package is empty
        import torch
        print(hasattr(torch, "tensor"))
    """)
    assert lines(result) == ["blocked"] * 4 + ["False"], result.stderr


# ---------------------------------------------------------------------------------------------
# Limits


@needs_sandbox
def test_memory_limit() -> None:
    result = python("""
        try:
            block = bytearray(400 * 1024 * 1024)
            print("allocated")
        except MemoryError:
            print("MemoryError")
        import numpy
        try:
            numpy.ones(50_000_000)
        except MemoryError:
            print("MemoryError")
    """, limits=sandbox.Limits(memory_mb=256))
    assert lines(result) == ["MemoryError", "MemoryError"], result.stderr


@needs_sandbox
def test_fork_bomb_hits_the_process_limit() -> None:
    result = python("""
        import os, time
        made = 0
        while True:
            try:
                os.fork()  # every process, children too, keeps forking
                made += 1
            except OSError as err:
                if made >= 0:
                    print("refused", err.errno, made, flush=True)
                    made = -10**9
                time.sleep(0.01)
    """, limits=sandbox.Limits(processes=24), timeout=3)
    assert result.timed_out
    first = result.stdout.decode().splitlines()[0].split()
    assert first[:2] == ["refused", "11"] and int(first[2]) < 24


@needs_sandbox
def test_file_size_limit() -> None:
    result = python("""
        try:
            with open("big", "wb") as f:
                f.write(b"x" * (3 * 1024 * 1024))
            print("written")
        except OSError as err:
            print(err.errno)
    """, limits=sandbox.Limits(file_size_mb=1))
    assert lines(result) == ["27"]  # EFBIG


@needs_sandbox
def test_cpu_limit_kills_a_spinning_process() -> None:
    result = python("while True: pass", limits=sandbox.Limits(cpu_seconds=1),
                    timeout=30)
    assert not result.timed_out and result.returncode != 0
    assert result.seconds < 10


@needs_sandbox
def test_timeout_kills_the_whole_tree() -> None:
    start = time.monotonic()
    result = python("""
        import os, signal
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                while True:
                    pass
            os._exit(0)
        print("spinning", flush=True)
        while True:
            pass
    """, timeout=1.5)
    assert result.timed_out and result.stdout == b"spinning\n"
    assert time.monotonic() - start < 8


@needs_sandbox
def test_nothing_survives_a_normal_exit() -> None:
    result = python("""
        import subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                         start_new_session=True)
        print("bye")
    """, timeout=20)
    assert result.returncode == 0 and not result.timed_out and lines(result) == ["bye"]
    assert result.seconds < 10


# ---------------------------------------------------------------------------------------------
# Unavailable: loud, with the reason


@pytest.fixture
def fresh_status():
    sandbox.status.cache_clear()
    yield
    sandbox.status.cache_clear()


def test_command_says_what_is_missing(monkeypatch, fresh_status, tmp_path: Path) -> None:
    real_which = shutil.which
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    monkeypatch.setattr(sandbox.shutil, "which",
                        lambda name, *a, **k: None if name == "bwrap" else real_which(name))
    assert not sandbox.status().available
    with pytest.raises(sandbox.SandboxUnavailable, match="missing programs: bwrap"):
        sandbox.command(["python"])


def test_command_requires_root(monkeypatch, fresh_status, tmp_path: Path) -> None:
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 1000)
    with pytest.raises(sandbox.SandboxUnavailable, match="must be started by root"):
        sandbox.run(["python"])


# ---------------------------------------------------------------------------------------------
# What a run costs, and what counts as escaped


@needs_sandbox
def test_a_run_counts_its_cpu_time_and_its_wait_for_a_busy_cpu() -> None:
    """A program that computes is on a CPU most of its run; beside two busy processes (on a
    2-core machine) it also waits for one. A program that sleeps does neither."""
    sandbox.status()  # (a fresh probe makes a trial run, which would count too)
    before = sandbox.usage()
    spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.0: pass"
    alone = python(spin)
    # each busy process in a session of its own, as the sandbox is (the scheduler shares a
    # CPU fairly between sessions first)
    hogs = [__import__("subprocess").Popen([sys.executable, "-c", "while True: pass"],
                                           start_new_session=True)
            for _ in range(2 * (os.cpu_count() or 2))]
    try:
        loaded = python(spin)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    asleep = python("import time; time.sleep(1.5)")
    # (what a task did after the last sample, at most 0.25 s, is not counted)
    assert 0.7 <= alone.cpu_seconds <= alone.seconds + 0.05, alone
    assert 0.7 <= loaded.cpu_seconds and loaded.wait_seconds > 0.3, loaded
    assert loaded.seconds - loaded.wait_seconds < alone.seconds + 1.0, (alone, loaded)
    assert asleep.seconds >= 1.5 and asleep.cpu_seconds < 0.5 and asleep.wait_seconds < 0.5
    used = sandbox.usage().since(before)
    assert used.runs == 3
    assert abs(used.cpu_seconds - sum(r.cpu_seconds for r in (alone, loaded, asleep))) < 1e-6


@needs_sandbox
def test_processes_of_a_running_sandbox_have_not_escaped_but_one_outside_has() -> None:
    import subprocess
    import threading

    ready = threading.Event()
    result: list[sandbox.Result] = []
    stop = threading.Event()
    worker = threading.Thread(target=lambda: result.append(sandbox.run(
        [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(30)"],
        timeout=60, stop=stop)))
    worker.start()
    try:
        deadline = time.monotonic() + 20
        while not ready.is_set() and time.monotonic() < deadline:
            inside = [p for p in sandbox.leftover_processes()
                      if "time.sleep(30)" in Path(f"/proc/{p}/cmdline").read_text(errors="ignore")]
            if inside:
                ready.set()
            time.sleep(0.05)
        assert ready.is_set(), "the sandboxed program never started"
        assert not set(inside) & set(sandbox.escaped_processes())
        outside = subprocess.Popen(["setpriv", f"--reuid={STATE.uid}", f"--regid={STATE.uid}",
                                    "--clear-groups", "sleep", "30"])
        try:
            deadline = time.monotonic() + 10
            while outside.pid not in sandbox.escaped_processes():
                assert time.monotonic() < deadline, "a grader process outside was not seen"
                time.sleep(0.05)
        finally:
            outside.kill()
            outside.wait()
    finally:
        stop.set()
        worker.join(30)
    assert result and not result[0].timed_out


@needs_sandbox
def test_sandboxes_running_at_once_have_users_and_process_limits_of_their_own() -> None:
    """While one sandbox forks up to its process limit, another started beside it still
    starts processes: each runs as the user of its own slot (RLIMIT_NPROC is per user)."""
    import threading

    assert len(set(STATE.uids)) == sandbox.SLOTS >= 2
    bomb: list[sandbox.Result] = []
    worker = threading.Thread(target=lambda: bomb.append(sandbox.run([sys.executable, "-c", (
        "import os, time\nprint(os.getuid(), flush=True)\n"
        "while True:\n    try:\n        os.fork()\n    except OSError:\n"
        "        time.sleep(0.05)")], limits=sandbox.Limits(processes=64), timeout=6)))
    worker.start()
    try:
        time.sleep(2)  # the bomb is at its limit by now
        beside = python("""
            import os, subprocess, sys, threading
            threading.Thread(target=lambda: None).start()
            print(os.getuid(), subprocess.run([sys.executable, "-c", "print(7)"],
                  capture_output=True, text=True).stdout.strip())
        """, limits=sandbox.Limits(processes=64))
    finally:
        worker.join(30)
    assert bomb and bomb[0].timed_out
    uid, seven = lines(beside)
    assert seven == "7" and uid != bomb[0].stdout.decode().split()[0], beside


def test_installed_python_files_carry_their_bytecode(tmp_path: Path, monkeypatch) -> None:
    """A sandbox cannot write bytecode: install_files compiles each module once, checked
    against the source's hash, and an import inside uses it."""
    import importlib.util

    monkeypatch.setattr(sandbox, "_support_root", lambda: tmp_path / "support")
    (tmp_path / "support").mkdir(mode=0o755)
    if os.geteuid() != 0:
        pytest.skip("install_files needs a root-owned folder")
    folder = sandbox.install_files("runtime", {"pkg/__init__.py": b"VALUE = 41 + 1\n",
                                               "pkg/broken.py": b"def (:\n"})
    cached = Path(importlib.util.cache_from_source(str(folder / "pkg" / "__init__.py")))
    assert cached.is_file() and oct(cached.stat().st_mode & 0o777) == "0o644"
    assert not Path(importlib.util.cache_from_source(str(folder / "pkg" / "broken.py"))).exists()
