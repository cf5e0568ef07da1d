"""Stopping a process pool never leaves its manager thread blocked, even when a worker died in
the middle of sending a result (the Ctrl-C hang of `robograph run` under load: the interpreter's
exit hook joins that thread)."""

from __future__ import annotations

import os
import struct
import time

from robograph.pool import stop_pool, worker_pool


def _pid() -> int:
    return os.getpid()


def test_stop_pool_ends_the_manager_thread_stuck_on_half_a_result():
    with worker_pool(2) as pool:
        workers = {pool.submit(_pid).result(timeout=60) for _ in range(4)}
        assert workers and os.getpid() not in workers
        manager = pool._executor_manager_thread
        # what a worker terminated mid-send leaves behind: a header promising 1000 bytes, then 4
        pool._result_queue._writer._send(struct.pack("!i", 1000) + b"half")
        time.sleep(0.5)
        assert manager.is_alive()  # blocked reading the rest of the message
        stop_pool(pool)
        manager.join(timeout=10)
        assert not manager.is_alive(), "the pool's manager thread still waits for the rest of a result"
