"""Where a tournament's chunks run: this process, a pool of local processes, or Ray.

Each backend yields every chunk's records as the chunk finishes, in whatever
order; a chunk's battles depend only on the chunk, so results do not depend
on the backend or the number of workers. Ray is an optional extra
(``pip install -e '.[ray]'``), imported only when asked for.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from vtm_sim.arena.tournament import Backend, Chunk, InProcess
from vtm_sim.errors import ConfigError

Records = list[dict[str, Any]]
AHEAD = 4  # chunks queued per worker: enough to keep it busy, few to cancel on Ctrl-C


class LocalPool:
    """``--jobs J``: J worker processes on this machine."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def run(self, fn: Callable[[Chunk], Records], tasks: Sequence[Chunk]) -> Iterator[Records]:
        ctx = _context(tasks)
        with ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx) as pool:
            todo = iter(tasks)
            running: set[Future[Records]] = set()
            try:
                while True:
                    while len(running) < self.jobs * AHEAD:
                        task = next(todo, None)
                        if task is None:
                            break
                        running.add(pool.submit(fn, task))
                    if not running:
                        return
                    done, running = wait(running, return_when=FIRST_COMPLETED)
                    for f in done:
                        yield f.result()
            finally:
                for f in running:
                    f.cancel()


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
