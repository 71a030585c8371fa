"""A Jupyter kernel launcher that runs ipykernel inside the grading sandbox.

    python -m autograder.sandbox_kernel --workdir W [--readable P ...] [--env K=V ...]
        [--memory-mb N --cpu-seconds N --processes N --file-size-mb N --open-files N]
        -f CONNECTION_FILE

execs bwrap (see ``autograder.sandbox``) running ``python -m ipykernel_launcher`` as the grader
user, so the kernel and everything it starts die when the launcher process is killed.

The sandbox has no network, so the kernel must talk over Jupyter's IPC transport (unix
sockets). The *client* side (nbclient, nbgrader) has to be configured with

    KernelManager.transport = "ipc"
    KernelManager.ip = "<D>/kernel"        # absolute; D a fresh, empty directory per kernel

(for example ``c.KernelManager.transport = "ipc"`` in a config file, or
``--KernelManager.transport=ipc --KernelManager.ip=<D>/kernel`` on nbgrader's command line,
or ``NotebookClient(..., config=Config({"KernelManager": {...}}))``) and must find the
kernelspec written by ``install_kernelspec(prefix_dir, ...)``: set ``JUPYTER_PATH=prefix_dir``
and the kernel name (``NotebookClient(kernel_name=...)``, ``c.Execute.kernel_name``).

The launcher binds ``D`` read-write into the sandbox (and gives it to the grader user): the
kernel creates its sockets there. Because everything in ``D`` is visible to the student's code,
``D`` must be dedicated to this one kernel. The connection file (written by the client, root
only) is copied into ``D`` for the kernel to read; nothing else of Jupyter's runtime directory
is visible. IPython's and matplotlib's own files go to ``D`` too, so ``--workdir`` only holds
what the student's code writes. Interrupts are sent as messages (``interrupt_mode`` in the
kernelspec): a SIGINT to the launcher would kill bwrap, and the sandbox with it.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from autograder import sandbox

__all__ = ["install_kernelspec", "main"]


def install_kernelspec(prefix_dir: Path, *, name: str = "reftensor-sandbox", workdir: Path,
                       readable: Sequence[Path], limits: sandbox.Limits | None = None,
                       env: Mapping[str, str] | None = None) -> Path:
    """Write ``prefix_dir/kernels/<name>/kernel.json`` for a sandboxed kernel; return its dir.

    ``workdir`` is the kernel's writable directory (normally the notebook's), ``readable`` the
    paths it may read, ``env`` extra environment inside (e.g. ``PYTHONPATH`` of a readable copy
    of ``reftensor``). Point ``JUPYTER_PATH`` at ``prefix_dir`` to use it.
    """
    limits = limits or sandbox.Limits()
    argv = [sys.executable, "-m", "autograder.sandbox_kernel", "--workdir", str(workdir)]
    for path in readable:
        argv += ["--readable", str(path)]
    for key, value in (env or {}).items():
        argv += ["--env", f"{key}={value}"]
    argv += [f"--memory-mb={limits.memory_mb}", f"--cpu-seconds={limits.cpu_seconds}",
             f"--processes={limits.processes}", f"--file-size-mb={limits.file_size_mb}",
             f"--open-files={limits.open_files}", "-f", "{connection_file}"]
    spec = {
        "argv": argv,
        "display_name": "Python 3 (grading sandbox)",
        "language": "python",
        "interrupt_mode": "message",
        "metadata": {"debugger": False},
    }
    folder = Path(prefix_dir) / "kernels" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps(spec, indent=2) + "\n")
    return folder


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m autograder.sandbox_kernel",
                                     description="Start ipykernel inside the grading sandbox.")
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--readable", type=Path, action="append", default=[])
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    defaults = sandbox.Limits()
    parser.add_argument("--memory-mb", type=int, default=defaults.memory_mb)
    parser.add_argument("--cpu-seconds", type=int, default=defaults.cpu_seconds)
    parser.add_argument("--processes", type=int, default=defaults.processes)
    parser.add_argument("--file-size-mb", type=int, default=defaults.file_size_mb)
    parser.add_argument("--open-files", type=int, default=defaults.open_files)
    parser.add_argument("-f", "--connection-file", type=Path, required=True)
    return parser.parse_args(argv)


def _fail(message: str, code: int) -> int:
    print(f"autograder.sandbox_kernel: {message}", file=sys.stderr, flush=True)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Exec the sandboxed kernel; return an exit code only when it cannot be started."""
    args = _arguments(argv)
    state = sandbox.status()
    if not state.available:
        return _fail(f"REFUSING TO START AN UNSANDBOXED KERNEL: the grading sandbox is "
                     f"unavailable: {state.reason}", 3)
    connection = json.loads(args.connection_file.read_text())
    if connection.get("transport") != "ipc":
        return _fail("the sandbox has no network: configure the client with "
                     "KernelManager.transport='ipc' and KernelManager.ip='<private dir>/kernel'",
                     2)
    ip = connection.get("ip", "")
    if not os.path.isabs(ip):
        return _fail(f"KernelManager.ip must be an absolute socket path prefix, not {ip!r}", 2)
    sockets = Path(ip).parent.resolve()
    if not sockets.is_dir():
        return _fail(f"the socket directory {sockets} does not exist", 2)
    if sockets.stat().st_mode & (stat.S_ISVTX | stat.S_IWOTH):
        return _fail(f"the socket directory {sockets} is shared (like /tmp): give the kernel a "
                     f"directory of its own", 2)

    # The copy the kernel reads. The directory belongs to the grader user, who may have left a
    # symlink at this name (a restarted kernel): never write through one.
    user = pwd.getpwnam(state.user or "")
    copy = sockets / f"sandbox-{args.connection_file.name}"
    copy.unlink(missing_ok=True)
    fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(args.connection_file.read_bytes())
        os.fchown(handle.fileno(), user.pw_uid, user.pw_gid)

    env = {
        "JPY_PARENT_PID": "1",  # the kernel's parent is the sandbox's pid 1: no parent polling
        "IPYTHONDIR": str(sockets / "ipython"),
        "MPLCONFIGDIR": str(sockets / "matplotlib"),
        "JUPYTER_RUNTIME_DIR": str(sockets / "runtime"),
        "JUPYTER_DATA_DIR": str(sockets / "data"),
        "JUPYTER_CONFIG_DIR": str(sockets / "config"),
    }
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep:
            return _fail(f"--env wants KEY=VALUE, not {item!r}", 2)
        env[key] = value
    limits = sandbox.Limits(memory_mb=args.memory_mb, cpu_seconds=args.cpu_seconds,
                            processes=args.processes, file_size_mb=args.file_size_mb,
                            open_files=args.open_files)
    workdir = args.workdir.resolve()
    visible = [workdir, sockets, *(p.resolve() for p in args.readable)]
    here = Path.cwd().resolve()
    cwd = here if any(here.is_relative_to(p) for p in visible) else workdir
    cmd = sandbox.command([sys.executable, "-m", "ipykernel_launcher", "-f", str(copy)],
                          workdir=workdir, readable=args.readable, writable=[sockets],
                          env=env, limits=limits, cwd=cwd)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
