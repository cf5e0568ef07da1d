"""Local process pools whose workers never outlive the process that made them.

`concurrent.futures.ProcessPoolExecutor` workers block on a pipe whose write end they inherited
themselves, so when the parent is killed with SIGKILL they never see end-of-file and linger,
idle, as orphans. Each worker made here therefore watches its parent: on Linux the kernel sends
it SIGKILL when the parent dies (`prctl(PR_SET_PDEATHSIG)`), and everywhere a daemon thread
polls `os.getppid()` and exits the worker when it changes (re-parenting means the parent is
gone). Workers ignore SIGINT: Ctrl-C in a terminal goes to the whole process group, and it is
the parent's job to stop the run cleanly, not each worker's to die mid-write with a traceback.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
PARENT_POLL_S = 0.5


def _set_parent_death_signal() -> None:
    """Ask the Linux kernel to SIGKILL this process when its parent dies (no-op elsewhere)."""
    if not sys.platform.startswith("linux"):
        return
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # the polling thread still covers this worker


def _watch_parent(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)  # the parent is gone: nothing will ever read this worker's results
        time.sleep(PARENT_POLL_S)


def init_worker(parent: int) -> None:
    """Pool initializer: tie this worker's life to `parent` and leave SIGINT to the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _set_parent_death_signal()
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()


@contextmanager
def worker_pool(max_workers: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool whose workers exit when this process dies (see the module docstring).

    Leaving the block normally waits for the submitted work; leaving it by an exception (Ctrl-C,
    a closed generator) stops the pool at once (`stop_pool`) instead of finishing queued work
    that nobody will collect."""
    pool = ProcessPoolExecutor(max_workers=max_workers, initializer=init_worker, initargs=(os.getpid(),))
    try:
        yield pool
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: drop queued work and end the workers without waiting for running jobs
    (what Ctrl-C wants; their results were never written, so a resumed run redoes them)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # no public API for this
    results = getattr(pool, "_result_queue", None)  # shutdown() forgets it: take it first
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=5)
    _unblock_result_reader(results)


def _unblock_result_reader(results: object) -> None:
    """Let the pool's manager thread end once its workers are dead.

    A worker terminated in the middle of sending a result leaves half a message in the result
    pipe; the manager thread then blocks forever reading the rest, and the interpreter's exit
    hook (`concurrent.futures.process._python_exit`) joins that thread, so a Ctrl-C'd run
    printed its summary and then hung (seen under load, about 1 run in 6). The parent holds the
    pipe's only remaining write end; closing it turns the wait into end-of-file, which the
    manager thread treats as a broken pool and exits."""
    writer = getattr(results, "_writer", None)
    if writer is not None and not writer.closed:
        writer.close()
