"""Ctrl-C and SIGTERM around pools of workers: where the parent takes them, and where the workers do not.

A terminal's Ctrl-C sends SIGINT to every process of the foreground group.
Python turns it into a ``KeyboardInterrupt`` raised in the main thread at
whatever bytecode it is running.  That is fine in our own code, and wrong inside
:mod:`concurrent.futures`: :func:`concurrent.futures.wait` acquires the
condition of every pending future one by one, and an exception between two
acquisitions leaves the rest held for ever.  The worker threads then block on
those conditions when they finish a task, and the pool's ``shutdown(wait=True)``
waits for them for ever.  Measured on an exhaustive 16-bit evaluation waiting on
1,024 tasks: 3 hangs in the first 55 interrupts, none in 900 with this module.

So a process that waits on a pool does it inside
:func:`artefacts.interrupts_deferred`, the one place that holds Ctrl-C back:
SIGINT only records a request there, and the waiting helpers of this module
deliver it (raise ``KeyboardInterrupt``) between two waits, where no lock is
held.  The pool's workers ignore SIGINT (:func:`ignore_interrupts`)
and are started with it blocked (:func:`interrupts_held`), so that the parent
alone stops: it cancels what has not started, lets the running tasks end and
exits with status 130.  SIGTERM (a batch system's, or ``timeout``'s), which the
command line turns into an exception of the same family
(:func:`artefacts.terminate_as_interrupt`), is held back, blocked and ignored
alike; the command then exits with status 143.
"""

import concurrent.futures
import contextlib
import signal
import threading

from artefacts import INTERRUPT_SIGNALS, DeferredInterrupt

__all__ = ["wait", "as_completed", "result", "interrupts_held", "ignore_interrupts", "POLL_SECONDS"]

#: Longest time between a Ctrl-C and its delivery by the waiting helpers below: they wake
#: this often to look.
POLL_SECONDS = 0.2


def wait(futures, interrupt: DeferredInterrupt) -> set:
    """The futures of ``futures`` that are done, once at least one is.

    Call it inside ``with artefacts.interrupts_deferred() as interrupt``.

    Raises
    ------
    KeyboardInterrupt
        Within :data:`POLL_SECONDS` of a Ctrl-C, with no future's lock held.
    """
    while True:
        interrupt.check()
        done, _ = concurrent.futures.wait(futures, timeout=POLL_SECONDS,
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        interrupt.check()
        if done:
            return done


def as_completed(futures, interrupt: DeferredInterrupt):
    """Yield each future of ``futures`` as it completes, as :func:`concurrent.futures.as_completed`.

    Futures that complete within one wait are yielded in the order of ``futures``, not of a
    set's hashes, so that what a caller prints per future is the same from run to run.
    Raises ``KeyboardInterrupt`` as :func:`wait` does.
    """
    pending = list(futures)
    while pending:
        done = wait(pending, interrupt)
        for future in [future for future in pending if future in done]:
            pending.remove(future)
            yield future


def result(future, interrupt: DeferredInterrupt):
    """``future.result()``, waited for in steps; raises ``KeyboardInterrupt`` as :func:`wait` does."""
    while True:
        interrupt.check()
        try:
            return future.result(timeout=POLL_SECONDS)
        except concurrent.futures.TimeoutError:
            continue


def ignore_interrupts() -> None:
    """Worker initialiser: leave Ctrl-C (SIGINT) and SIGTERM to the parent process.

    A worker that took one would die, with a ``KeyboardInterrupt`` traceback of its
    own, and break the pool.  Ignoring them lets the parent alone stop.
    """
    for signum in INTERRUPT_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    # A worker forked inside interrupts_held() starts with both blocked; one that arrived
    # meanwhile is discarded now, since it is ignored.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPT_SIGNALS)


@contextlib.contextmanager
def interrupts_held():
    """Block SIGINT and SIGTERM in this thread while worker processes are started (by the first submit).

    A worker started before its initialiser ran would still have this process's
    handlers, and a Ctrl-C then would print its own traceback.  Started with
    both blocked (the mask survives both fork and exec), it can only get them
    after :func:`ignore_interrupts`.  This process still gets it: when the
    block ends, or at once through another of its threads, so run the submit
    inside :func:`artefacts.interrupts_deferred` too.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, INTERRUPT_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPT_SIGNALS)
