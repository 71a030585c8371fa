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

from autograder import sandbox

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
    """Run a Python program in the sandbox; assert it left nothing behind."""
    result = sandbox.run([sys.executable, "-c", textwrap.dedent(code)], **kwargs)
    assert sandbox.leftover_processes() == []
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
    assert lines(result) == ["/tmp", "/tmp", "/tmp", "6", str(STATE.uid), "stdout",
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
    uid = str(STATE.uid)
    assert lines(result) == [uid, uid, "[]", "0" * 16, "0" * 16, "1", "setuid-refused"]
    assert uid != "0"


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
