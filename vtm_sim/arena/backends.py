"""Where a tournament's chunks run: this process, a pool of local processes, or Ray.

Each backend yields every chunk's records as the chunk finishes, in whatever
order; a chunk's battles depend only on the chunk, so results do not depend
on the backend or the number of workers. Ray is an optional extra
(``pip install -e '.[ray]'``), imported only when asked for.

A local pool's workers stop with the tournament: at once when it is
interrupted (Ctrl-C, an error), and on their own when its process is killed.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from vtm_sim.arena.tournament import Backend, Chunk, InProcess
from vtm_sim.errors import ConfigError

Records = list[dict[str, Any]]
AHEAD = 4  # chunks queued per worker: enough to keep it busy, few to cancel on Ctrl-C


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one, so a
    container's or ``taskset``'s limit counts): the default number of workers."""
    count = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if count is not None:
        return max(1, count() or 1)
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


class LocalPool:
    """``--jobs J``: J worker processes on this machine (no more than there are chunks)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def run(self, fn: Callable[[Chunk], Records], tasks: Sequence[Chunk]) -> Iterator[Records]:
        if not tasks:
            return
        workers = min(self.jobs, len(tasks))
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=_context(tasks),
                                   initializer=_worker_setup)
        todo = iter(tasks)
        running: set[Future[Records]] = set()
        finished = False
        try:
            while True:
                while len(running) < workers * AHEAD:
                    task = next(todo, None)
                    if task is None:
                        break
                    running.add(pool.submit(fn, task))
                if not running:
                    finished = True
                    return
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:  # interrupted, an error, or the caller stopped early: stop every worker now
                _stop(pool)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down without waiting for its running chunks: terminate its workers."""
    # the workers, before shutdown forgets them (ProcessPoolExecutor has no public way
    # to stop a running task before Python 3.14's terminate_workers)
    procs = dict(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs.values():
        if proc.is_alive():
            proc.terminate()
    for proc in procs.values():
        proc.join(timeout=5)


def _worker_setup() -> None:
    """Run in each worker first: Ctrl-C is the tournament's to handle (it stops the workers),
    and a worker whose tournament process died (``kill -9``) exits instead of waiting
    forever for chunks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-tournament", daemon=True).start()


def _context(tasks: Sequence[Chunk]) -> multiprocessing.context.BaseContext:
    """forkserver where there is one: workers never inherit this process's threads
    (a loaded torch model's, say).

    Nothing is preloaded in the server: Python 3.11's forkserver imports its preload
    list before it applies this process's ``sys.path``, so from a source checkout it
    would load the checkout's pure modules where this process runs an installed
    (compiled) build. Each worker imports on its first task, with this process's path.
    """
    del tasks
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    return multiprocessing.get_context("forkserver")


class RayTasks:
    """``--backend ray``: one Ray task per chunk, on a cluster (``--address``) or a
    local Ray instance started for the run with ``jobs`` CPUs."""

    def __init__(self, jobs: int, address: str | None) -> None:
        self.jobs = jobs
        self.address = address

    def run(self, fn: Callable[[Chunk], Records], tasks: Sequence[Chunk]) -> Iterator[Records]:
        try:
            import ray
        except ImportError:
            raise ConfigError("--backend ray: Ray is not installed (pip install -e '.[ray]')"
                              ) from None
        started = not ray.is_initialized()
        if started:
            try:
                if self.address is None:
                    ray.init(num_cpus=self.jobs, include_dashboard=False, log_to_driver=False,
                             configure_logging=False)
                else:
                    ray.init(address=self.address, log_to_driver=False,
                             configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = self.address or "a local instance"
                raise ConfigError(f"--address: cannot start or reach Ray at {where} ({exc})"
                                  ) from None
        try:
            remote = ray.remote(fn)
            pending = [remote.remote(t) for t in tasks]
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                yield ray.get(done[0])
        finally:
            if started:
                ray.shutdown()


def backend(name: str, jobs: int, address: str | None = None) -> Backend:
    """The backend ``--backend NAME --jobs J [--address ADDR]`` asks for."""
    if name == "ray":
        return RayTasks(jobs, address)
    if address is not None:
        raise ConfigError("--address: only with --backend ray")
    return InProcess() if jobs == 1 else LocalPool(jobs)
