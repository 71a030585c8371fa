"""The grading sandbox (autograder.sandbox): what student code can and cannot do inside it."""

from __future__ import annotations

import json
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


# what the sandbox binds besides the work directory: the venv and the base interpreter
BOUND = [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()]
needs_sandbox = pytest.mark.skipif(
    not STATE.available, reason=f"grading sandbox unavailable here: {STATE.reason}")


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def python(code: str, workdir: Path, **kwargs) -> sandbox.Result:
    """Run a Python program in the sandbox; assert it left nothing behind."""
    result = sandbox.run([sys.executable, "-c", textwrap.dedent(code)], workdir=workdir,
                         **kwargs)
    assert sandbox.leftover_processes() == []
    return result


def lines(result: sandbox.Result) -> list[str]:
    return result.stdout.decode().split()


# ---------------------------------------------------------------------------------------------
# What it can do


@needs_sandbox
def test_numpy_workdir_output_and_readable_paths(tmp_path: Path, workdir: Path) -> None:
    granted = tmp_path / "granted"
    granted.mkdir()
    (granted / "data.txt").write_text("shared data")
    granted.chmod(0o755)
    result = python("""
        import os, sys
        import numpy
        with open("out.txt", "w") as f:
            f.write(str(numpy.arange(4).sum()))
        with open(os.path.join(os.environ["GRANTED"], "data.txt")) as f:
            print("stdout", f.read().replace(" ", "_"))
        print("stderr", file=sys.stderr)
    """, workdir, readable=[granted], env={"GRANTED": str(granted)})
    assert result.returncode == 0, result.stderr
    assert lines(result) == ["stdout", "shared_data"]
    assert result.stderr == b"stderr\n"
    assert (workdir / "out.txt").read_text() == "6"
    assert (workdir / "out.txt").stat().st_uid == STATE.uid


@needs_sandbox
def test_pass_fds_and_input(workdir: Path) -> None:
    read, write = os.pipe()
    result = python(f"import os, sys; os.write({write}, sys.stdin.read().encode())", workdir,
                    input=b"through stdin", pass_fds=[write])
    os.close(write)
    assert result.returncode == 0, result.stderr
    assert os.read(read, 100) == b"through stdin"
    os.close(read)


# ---------------------------------------------------------------------------------------------
# Who it runs as


@needs_sandbox
def test_runs_as_grader_without_privileges(workdir: Path) -> None:
    result = python("""
        import os
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        print(os.getuid(), os.geteuid(), os.getgroups(), status["CapEff"].strip(),
              status["CapBnd"].strip(), status["NoNewPrivs"].strip())
        try:
            os.setuid(0)
        except PermissionError:
            print("setuid-refused")
    """, workdir)
    uid = str(STATE.uid)
    assert lines(result) == [uid, uid, "[]", "0" * 16, "0" * 16, "1", "setuid-refused"]
    assert uid != "0"


# ---------------------------------------------------------------------------------------------
# What it cannot reach


@needs_sandbox
def test_no_network(workdir: Path) -> None:
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
        """, workdir)
    # the host listens on its loopback; the sandbox has a loopback of its own, and no other
    # interface, so both addresses find nobody listening
    assert lines(result) == ["ConnectionRefusedError", "ConnectionRefusedError", "['lo']"]


@needs_sandbox
def test_only_granted_paths_are_visible(tmp_path: Path, workdir: Path) -> None:
    (tmp_path / "workspace").mkdir()
    (tmp_path / "workspace" / "gradebook.db").write_text("grades")
    (tmp_path / "other-student").mkdir()
    under_tmp = _first_parts_under("/tmp", [workdir.resolve(), *BOUND])
    in_repo = _first_parts_under(str(REPO), BOUND)  # e.g. ['.venv'] when the venv is inside
    in_root = _first_parts_under("/root", BOUND)  # e.g. ['.pyenv'] for a pyenv Python
    result = python(f"""
        import os
        def listing(path):
            return sorted(os.listdir(path)) if os.path.isdir(path) else []
        print(os.path.exists({str(REPO / "solutions")!r}),
              os.path.exists({str(REPO / "reftensor")!r}))
        print(listing({str(REPO)!r}), listing("/root"))
        print(sorted(os.listdir({str(tmp_path)!r})))
        print(os.path.exists({str(tmp_path / "workspace" / "gradebook.db")!r}))
        print(sorted(os.listdir("/tmp")) == {under_tmp!r})  # only the way to bound paths
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
    """, workdir)
    root_error = "IsADirectoryError" if in_root else "FileNotFoundError"
    assert lines(result) == [
        "False", "False", str(in_repo), str(in_root), "['work']", "False", "True",
        "FileNotFoundError", "FileNotFoundError", root_error, "no-reftensor"]


@needs_sandbox
def test_cannot_write_outside_workdir(tmp_path: Path, workdir: Path) -> None:
    granted = tmp_path / "granted"
    granted.mkdir(mode=0o755)
    granted.chmod(0o777)  # even a world-writable readable path is bound read-only
    site = next(Path(sys.prefix).glob("lib/python3*/site-packages"))
    targets = ["/tmp/x", "/x", "/etc/x", "/dev/shm/x", str(site / "x.py"), str(granted / "x"),
               str(Path(sys.prefix) / "x")]
    result = python(f"""
        for path in {targets!r}:
            try:
                open(path, "w").close()
                print("written", path)
            except OSError as err:
                print(type(err).__name__)
    """, workdir, readable=[granted])
    assert all(word in ("PermissionError", "OSError") for word in lines(result)), result.stdout
    assert len(lines(result)) == len(targets)
    assert list(granted.iterdir()) == []


@needs_sandbox
def test_torch_is_not_importable(workdir: Path) -> None:
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
    """, workdir)
    assert lines(result) == ["blocked"] * 4 + ["False"], result.stderr


# ---------------------------------------------------------------------------------------------
# Limits


@needs_sandbox
def test_memory_limit(workdir: Path) -> None:
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
    """, workdir, limits=sandbox.Limits(memory_mb=256))
    assert lines(result) == ["MemoryError", "MemoryError"], result.stderr


@needs_sandbox
def test_fork_bomb_hits_the_process_limit(workdir: Path) -> None:
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
    """, workdir, limits=sandbox.Limits(processes=24), timeout=3)
    assert result.timed_out
    first = result.stdout.decode().splitlines()[0].split()
    assert first[:2] == ["refused", "11"] and int(first[2]) < 24


@needs_sandbox
def test_file_size_limit(workdir: Path) -> None:
    result = python("""
        try:
            with open("big", "wb") as f:
                f.write(b"x" * (3 * 1024 * 1024))
            print("written")
        except OSError as err:
            print(err.errno)
    """, workdir, limits=sandbox.Limits(file_size_mb=1))
    assert lines(result) == ["27"]  # EFBIG
    assert (workdir / "big").stat().st_size == 1024 * 1024


@needs_sandbox
def test_cpu_limit_kills_a_spinning_process(workdir: Path) -> None:
    result = python("while True: pass", workdir, limits=sandbox.Limits(cpu_seconds=1),
                    timeout=30)
    assert not result.timed_out and result.returncode != 0
    assert result.seconds < 10


@needs_sandbox
def test_timeout_kills_the_whole_tree(workdir: Path) -> None:
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
    """, workdir, timeout=1.5)
    assert result.timed_out and result.stdout == b"spinning\n"
    assert time.monotonic() - start < 8


@needs_sandbox
def test_nothing_survives_a_normal_exit(workdir: Path) -> None:
    result = python("""
        import subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                         start_new_session=True)
        print("bye")
    """, workdir, timeout=20)
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
        sandbox.command(["python"], workdir=tmp_path)


def test_command_requires_root(monkeypatch, fresh_status, tmp_path: Path) -> None:
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 1000)
    with pytest.raises(sandbox.SandboxUnavailable, match="must be started by root"):
        sandbox.run(["python"], workdir=tmp_path)


# ---------------------------------------------------------------------------------------------
# The sandboxed Jupyter kernel


def _notebook(*sources: str):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(textwrap.dedent(s)) for s in sources]
    return nb


@pytest.fixture
def kernel(tmp_path: Path, workdir: Path, monkeypatch):
    """A NotebookClient factory using the sandboxed kernelspec over IPC sockets."""
    from nbclient import NotebookClient
    from traitlets.config import Config

    from autograder.sandbox_kernel import install_kernelspec

    prefix = tmp_path / "jupyter"
    install_kernelspec(prefix, name="sandbox-test", workdir=workdir, readable=[])
    sockets = tmp_path / "kernel"
    sockets.mkdir()
    monkeypatch.setenv("JUPYTER_PATH", str(prefix))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(sockets))
    config = Config({"KernelManager": {"transport": "ipc", "ip": str(sockets / "kernel")}})

    def client(nb):
        return NotebookClient(nb, kernel_name="sandbox-test", timeout=30, startup_timeout=30,
                              allow_errors=True, config=config,
                              resources={"metadata": {"path": str(workdir)}})
    return client


def _wait_no_leftovers() -> list[int]:
    deadline = time.monotonic() + 5
    while sandbox.leftover_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    return sandbox.leftover_processes()


@needs_sandbox
def test_kernel_runs_a_notebook(kernel, workdir: Path) -> None:
    host = socket.create_server(("127.0.0.1", 0))  # listening on the host's loopback
    HOST_PORT = host.getsockname()[1]  # noqa: N806 - read by the cell below
    nb = _notebook(
        'import os\nprint("hello", os.getuid(), os.getcwd())',
        'raise ValueError("boom")',
        f"""
        import os, socket
        try:
            import torch
        except ModuleNotFoundError:
            print("no-torch")
        try:
            socket.create_connection(("127.0.0.1", {HOST_PORT}), timeout=2)
        except OSError:
            print("no-network")
        print(os.path.exists({str(REPO / "solutions")!r}),
              sorted(os.listdir({str(REPO)!r})) if os.path.isdir({str(REPO)!r}) else [])
        open("written.txt", "w").write("from the kernel")
        """,
    )
    kernel(nb).execute()
    host.close()
    texts = [json.dumps(cell.outputs) for cell in nb.cells]
    assert f"hello {STATE.uid} {workdir}" in texts[0]
    assert nb.cells[1].outputs[0]["ename"] == "ValueError"
    assert "no-torch" in texts[2] and "no-network" in texts[2]
    assert f"False {_first_parts_under(str(REPO), BOUND)}" in texts[2]
    assert (workdir / "written.txt").read_text() == "from the kernel"
    assert _wait_no_leftovers() == []


@needs_sandbox
def test_kernel_death_is_reported_and_leaves_nothing(kernel) -> None:
    from nbclient.exceptions import DeadKernelError

    nb = _notebook('print("alive")', "import os\nos.kill(os.getpid(), 9)", 'print("after")')
    with pytest.raises(DeadKernelError):
        kernel(nb).execute()
    assert "alive" in json.dumps(nb.cells[0].outputs)
    assert _wait_no_leftovers() == []
