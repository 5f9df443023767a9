"""Flattening loop nests into one pipelined loop (issue 11).

A nest of ``for`` loops over ``range`` is rewritten, after type checking, into
one ``while`` loop whose iterations are the innermost iterations of the whole
nest.  The IR builder then pipelines that ``while`` as it pipelines any other
(speculation, squash, carries, the modulo scheduler, memory dependences and
forwarding all apply unchanged), so the outer loops no longer pay the inner
pipeline's fill and drain on every iteration.

For a two-level nest::

    for i in range(A, B, s):             c = A; e = B; first = 1
        pre                              if c < e:
        for j in range(C, D, t):             while 1:
            body                                 if first:
        post                                         i = c; pre; jc = C; je = D
                                                 brk = 0             (only with break)
                                                 if jc < je:
                                                     j = jc; jc = jc + t; body'
                                                 first = not jc < je (or: the
                                                         previous iteration broke)
                                                 if first:
                                                     post
                                                     final = not c + s < e
                                                     c = c + s
                                                     if final: break

* the loop is rotated: its condition is tested before it and then by the
  iteration that ends an outer iteration, so that the nest's last iteration
  ends the loop (tested at the top, one more iteration would issue only to
  fail the test, and the nest would take one II more than a single loop);
* ``pre`` and ``post`` (straight-line code, ``if`` allowed) become predicated
  operations of the first and of the last inner iteration of each outer
  iteration;
* the inner bounds ``C``/``D`` are evaluated after ``pre`` in every outer
  iteration, so they may depend on the outer index or on memory (triangular
  nests, CSR row bounds);
* an outer iteration whose inner run is empty still takes one iteration of the
  flattened loop, which runs ``pre`` and ``post``;
* ``break`` in the innermost body ends that inner run only: it sets a flag
  that guards the rest of the body (``continue`` likewise guards the rest of
  its iteration), and the run ends in the next flattened iteration, which is
  issued before the break resolves and does nothing but end the run, so that
  the row choice waits for the break of the iteration before last;
* deeper nests flatten level by level: the flattened inner nest is the inner
  loop of the next level out.

Each level's ``var = counter`` carries the loop's bounds and its depth in the
nest (``COUNTER_ATTR``), and its ``if first:`` before the inner loop, its ``if
first:`` after it and the ``if has:`` around the innermost body carry the level
and the iterations of the level's iteration they run in (``POSITION_ATTR``:
the first, the last, or both), which the memory dependence analysis reads to
order the accesses of one ``(i, j)`` (:mod:`hls.analysis.memdep`).

The rewrite keeps Python's meaning exactly, loop variables' values after the
loop included (each is assigned from its counter only in iterations that run),
and every generated node carries the line of the loop it comes from, so a
report explains the II in the user's lines.

``continue`` between the loops skips the rest of that outer iteration (after
one before the inner loop, its run is empty).  A nest is not flattened (and
:attr:`LoopPragma.note` says why) when the outer loop is ``hls.sequential``, an
inner loop is a ``while`` or ``hls.sequential`` or sits in an ``if`` with other
statements or an ``else`` (alone in an ``if``, its run is empty when the
condition is false), the
body holds several loops one after another, the code between loops has a
``break`` below the outermost flattened level, or the nest has a ``return``.  The golden model keeps running the
user's own nest: this rewrite is the compiler's, not the language's.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from dataclasses import dataclass
from typing import Callable

from amaranth.hdl import Shape, signed

from ..ir.ops import COUNTER_ATTR, POSITION_ATTR
from .shapes import BOOL, binary_shape, const_shape, mux_shape, unary_shape
from .typed import SHAPE_ATTR, LoopPragma, TypedKernel

__all__ = ["flatten_nests"]

#: Prefix of the rewrite's hidden variables (``__hls_`` names are reserved from users).
_PREFIX = "__hls_nest"
#: Loop pragmas a flattened nest may carry; any other (``hls.sequential``, or one the
#: rewrite does not know, such as an unrolling) keeps the nest as it is.
_FLATTENED_MODES = ("auto", "pipeline")


def flatten_nests(typed: TypedKernel) -> TypedKernel:
    """A copy of ``typed`` in which every flattenable loop nest is one ``while`` loop.

    ``typed`` itself (the golden model's input) is left untouched.  The ``while``
    standing for a nest has a :class:`LoopPragma` whose ``flattened`` lists the
    nest's loop lines, outermost first; an outer loop left as it was has a
    ``note`` saying why it was not flattened.
    """
    rewriter = _Rewriter(typed)
    body = rewriter.statements(typed.body)
    return dataclasses.replace(typed, body=body, variables=rewriter.variables, loops=rewriter.loops,
                               display_names=rewriter.display_names)


class _NotFlat(Exception):
    """The nest cannot be flattened, for ``reason`` (``None``: it is not a nest at all)."""

    def __init__(self, reason: str | None):
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Run:
    """A loop seen from its enclosing loop: what starts or resumes a run of it, and one
    flattened iteration.

    Attributes
    ----------
    preamble : list of ast.stmt
        Before the flattened loop (its first-iteration flags start at 1).
    init : list of ast.stmt
        In the enclosing loop's first inner iteration, after its ``pre``: starts a run,
        and sets ``more`` and ``has`` for the run's first iteration.
    resume : list of ast.stmt
        In the enclosing loop's other iterations: sets ``more`` and ``has``.
    has : str
        Hidden flag: this flattened iteration is an iteration of the loop (0 only in
        the one iteration an empty run takes).
    reset : list of ast.stmt
        At the start of every flattened iteration (clears break flags).
    step : list of ast.stmt
        One flattened iteration, run when ``has`` holds.
    after : list of ast.stmt
        After ``step`` in every flattened iteration (steps the innermost counter).
    end : callable
        A fresh expression, after ``step``: the run ends with this iteration.
    lines : tuple of int
        The lines of the loops, outermost first.
    pragmas : list of LoopPragma
    between : list of int
        Lines of the code between loops (run on a first or last inner iteration).
    end_var : str
    prologue : list of ast.stmt
    """

    preamble: list
    init: list
    resume: list
    has: str
    reset: list
    step: list
    after: list
    end: Callable[[], ast.expr]
    lines: tuple
    pragmas: list
    between: list
    #: The run's stop variable (the bound its counter is compared with).
    end_var: str = ""
    #: Hidden flag: the run goes on after this iteration.
    more: str = ""
    #: After the outermost loop's own bounds, before the flattened loop.
    prologue: list = dataclasses.field(default_factory=list)
    #: Each flattened iteration that runs ``step`` is one iteration of the loop (the innermost
    #: loop): its first and its last.
    single: bool = False
    #: How many flattened iterations every run of the loop takes, when that is one constant
    #: (constant bounds, and no ``break`` ends a run early); ``None`` otherwise.
    length: int | None = None


def _is_loop(node) -> bool:
    return isinstance(node, (ast.For, ast.While))


def _contains_loop(stmt) -> bool:
    return any(_is_loop(node) for node in ast.walk(stmt))


def _own_exits(stmts, kinds) -> list:
    """``break``/``continue`` statements of ``kinds`` bound to the loop whose body is ``stmts``."""
    found = []

    def walk(nodes):
        for node in nodes:
            if isinstance(node, kinds):
                found.append(node)
            elif isinstance(node, ast.If):
                walk(node.body)
                walk(node.orelse)
    walk(stmts)
    return found


def _returns(stmt) -> list:
    return [node for node in ast.walk(stmt) if isinstance(node, ast.Return)]


def _lines(stmts) -> list:
    return sorted({stmt.lineno for stmt in stmts})


class _Rewriter:
    def __init__(self, typed: TypedKernel):
        self.typed = typed
        self.variables = dict(typed.variables)
        self.display_names = dict(typed.display_names)
        self.loops = dict(typed.loops)
        #: loop -> its (counter, stop) hidden variables
        self.levels = {}

    # -- statement lists ---------------------------------------------------------------------

    def statements(self, stmts: list) -> list:
        out = []
        for stmt in stmts:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt) -> list:
        if isinstance(stmt, ast.For):
            try:
                run = self.nest(stmt, depth=0)
            except _NotFlat as failure:
                new = self.copy(stmt, body=self.statements(stmt.body))
                pragma = self.loops.pop(stmt, LoopPragma("auto"))
                self.loops[new] = dataclasses.replace(pragma, note=failure.reason or "")
                return [new]
            counter, end = self.levels[stmt]
            start, stop, _ = stmt.iter.args
            # The outermost loop's own bounds, evaluated once, as range() does.
            bounds = [self.assign(counter, start, stmt), self.assign(end, stop, stmt)]
            # Rotated, as a counted loop is: the nest's condition is tested once before the loop and
            # then at the end of each iteration, so that the last iteration ends the loop itself.
            # Tested at the top, it would take one more iteration (one II more) that only fails it.
            entry = self.at(ast.If(test=self.compare(self.name(counter, stmt), self.name(end, stmt), stmt),
                                   body=[self.flattened_loop(stmt, run, counter, end)], orelse=[]), stmt)
            return run.preamble + bounds + run.prologue + [entry]
        if isinstance(stmt, ast.While):
            new = self.copy(stmt, body=self.statements(stmt.body))
            self.loops[new] = self.loops.pop(stmt, LoopPragma("auto"))
            return [new]
        if isinstance(stmt, ast.If) and _contains_loop(stmt):
            return [self.copy(stmt, body=self.statements(stmt.body), orelse=self.statements(stmt.orelse))]
        return [stmt]

    def flattened_loop(self, loop: ast.For, run: _Run, counter: str, end: str) -> ast.While:
        """The ``while`` standing for the nest ``loop``, with its :class:`LoopPragma`."""
        new = self.at(ast.While(test=self.const(1, loop), body=run.reset + run.step + run.after, orelse=[]), loop)
        targets = [pragma.ii for pragma in run.pragmas if pragma.ii is not None]
        mode = "pipeline" if any(pragma.mode == "pipeline" for pragma in run.pragmas) else "auto"
        between = sorted(set(run.between))
        detail = (f"the code between the loops (line(s) {', '.join(map(str, between))}) runs on the first or "
                  f"last inner iteration of its loop" if between else "a perfect nest")
        self.loops.pop(loop, None)
        self.loops[new] = LoopPragma(mode, max(targets) if targets else None, flattened=run.lines, note=detail)
        return new

    @staticmethod
    def copy(node, **fields):
        """A new node like ``node`` with some fields replaced (the typed kernel's nodes are shared
        with the golden model and are never changed)."""
        new = type(node)(**{name: getattr(node, name) for name in node._fields})
        for name, value in fields.items():
            setattr(new, name, value)
        # The front end's annotations (`hls_filename`, the remainder loop's `hls_loop_name`, ...)
        # travel with the node.
        for name, value in vars(node).items():
            if name.startswith("hls_") and name not in fields:
                setattr(new, name, value)
        return ast.copy_location(new, node)

    # -- nests -------------------------------------------------------------------------------

    def nest(self, loop: ast.For, depth: int, bounds: tuple | None = None) -> _Run:
        """``loop`` flattened with the loops inside it; raises :class:`_NotFlat` (before making
        any hidden variable) when it cannot be.

        ``depth`` is the loop's level in the nest (0: the outermost). ``bounds`` are
        expressions to start its runs with instead of its own range bounds (values its
        enclosing loop computed ahead).
        """
        top = depth == 0
        pragma, pre, guard, inner, post, inner_pragma = self.check(loop, top)
        # Bounds under an if are not evaluated when it is false: they are not fetched ahead.
        ahead = self.prefetchable(loop, inner, pre) if top and guard is None else None
        if ahead is not None:
            pre = self.fetched_in_pre(pre, ahead)
        inner_bounds = None if ahead is None else ahead[:2]
        if any(_contains_loop(stmt) for stmt in inner.body):
            run = self.nest(inner, depth + 1, bounds=inner_bounds)
        else:
            run = self.innermost(inner, inner_pragma, depth + 1, inner_bounds)
        return self.outer(loop, pragma, pre, run, post, depth, bounds, ahead, guard)

    def check(self, loop: ast.For, top: bool) -> tuple:
        """``(pragma, pre, guarding if or None, inner loop, post, inner pragma)`` of a flattenable
        nest; raises :class:`_NotFlat` otherwise."""
        pragma = self.loops.get(loop, LoopPragma("auto"))
        if pragma.mode == "sequential":
            raise _NotFlat("it is hls.sequential")
        if pragma.mode not in _FLATTENED_MODES:
            raise _NotFlat(f"it is marked {pragma.mode}")
        inner_loops = [index for index, stmt in enumerate(loop.body) if _contains_loop(stmt)]
        if not inner_loops:
            raise _NotFlat(None)
        if _returns(loop):
            raise _NotFlat(f"return on line {_returns(loop)[0].lineno}")
        if len(inner_loops) > 1:
            lines = ", ".join(str(loop.body[index].lineno) for index in inner_loops)
            raise _NotFlat(f"its body holds several loops one after another (lines {lines})")
        index = inner_loops[0]
        inner = loop.body[index]
        if isinstance(inner, ast.While):
            raise _NotFlat(f"the inner loop on line {inner.lineno} is a while loop (its trip count is "
                           f"decided by its condition)")
        guard = None
        if isinstance(inner, ast.If) and not inner.orelse and len(inner.body) == 1 \
                and isinstance(inner.body[0], ast.For):
            # `if c: for ...`: the inner run is empty when c is false.
            guard, inner = inner, inner.body[0]
        if not isinstance(inner, ast.For):
            line = next(node.lineno for node in ast.walk(inner) if _is_loop(node))
            raise _NotFlat(f"the inner loop on line {line} is inside an if on line {inner.lineno} with other "
                           f"statements or an else")
        pre, post = loop.body[:index], loop.body[index + 1:]
        if not top:
            for stmt in _own_exits(pre + post, ast.Break):
                raise _NotFlat(f"break on line {stmt.lineno} ends the loop on line {loop.lineno}, "
                               f"which is inside another loop")
        inner_pragma = self.loops.get(inner, LoopPragma("auto"))
        if inner_pragma.mode == "sequential":
            raise _NotFlat(f"the inner loop on line {inner.lineno} is hls.sequential")
        if inner_pragma.mode not in _FLATTENED_MODES:
            raise _NotFlat(f"the inner loop on line {inner.lineno} is marked {inner_pragma.mode}")
        if any(_contains_loop(stmt) for stmt in inner.body):
            try:
                self.check(inner, top=False)
            except _NotFlat as failure:
                raise _NotFlat(f"the loop on line {inner.lineno} cannot be flattened: {failure.reason}") \
                    from None
        return pragma, pre, guard, inner, post, inner_pragma

    def prefetchable(self, loop: ast.For, inner: ast.For, pre: list):
        """``(next start, next stop, start reuses stop, start, stop, defined)`` when the bounds of
        ``inner`` depend only on ``loop``'s variable and on what the nest never writes, so
        that each iteration can compute the next outer iteration's bounds ahead: the
        choice between staying on a row and starting the next then waits for no memory
        read or arithmetic of this iteration.  ``None`` otherwise.

        A bound may be a variable that ``pre`` assigns once, unconditionally (``lo = ptr[r]``,
        then ``range(lo, hi)``): ``start`` and ``stop`` are then its value, and ``defined``
        maps each such assignment to the hidden variable holding its value fetched ahead.
        """
        var = loop.target.id
        assigned = [node.id for stmt in loop.body for node in ast.walk(stmt)
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)]
        stored = {node.value.id for stmt in loop.body for node in ast.walk(stmt)
                  if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)}
        # `x = e` at the top of `pre`, the only assignment of `x` in the nest.
        definitions = {stmt.targets[0].id: stmt for stmt in pre
                       if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                       and isinstance(stmt.targets[0], ast.Name) and assigned.count(stmt.targets[0].id) == 1}
        bounds = []
        for bound in inner.iter.args[:2]:
            if isinstance(bound, ast.Name) and bound.id in definitions:
                definition = definitions[bound.id]
                # As the assignment wraps its value, so does the hidden variable (the bound's shape).
                bounds.append((definition.value, Shape.cast(getattr(bound, SHAPE_ATTR)), definition))
            else:
                bounds.append((bound, Shape.cast(getattr(bound, SHAPE_ATTR)), None))
        uses_var = False
        for value, _, _ in bounds:
            for node in ast.walk(value):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    if node.id == var:
                        uses_var = True
                    elif node.id in assigned or node.id in stored:
                        return None
                elif isinstance(node, ast.Call):
                    return None
        if not uses_var:
            return None
        (start, start_shape, start_definition), (stop, stop_shape, stop_definition) = bounds
        step = loop.iter.args[2].value
        following = _Substitute(var, lambda at: self.binop(ast.Add, self.name(var, at), self.const(step, at), at))
        reuse = ast.dump(following.visit(copy.deepcopy(start))) == ast.dump(stop) and start_shape == stop_shape
        name = inner.target.id
        next_start = self.hidden(inner, name, "next_start", start_shape)
        next_stop = self.hidden(inner, name, "next_stop", stop_shape)
        defined = {id(definition): hidden for definition, hidden in ((start_definition, next_start),
                                                                     (stop_definition, next_stop))
                   if definition is not None}
        return next_start, next_stop, reuse, start, stop, defined

    def fetched_in_pre(self, pre: list, ahead: tuple) -> list:
        """``pre`` with each assignment of a bound (``lo = ptr[r]``) taking the value fetched ahead:
        the read is made once, one outer iteration early, not again on the read port."""
        defined = ahead[5]
        return [self.copy(stmt, value=self.name(defined[id(stmt)], stmt)) if id(stmt) in defined else stmt
                for stmt in pre]

    def outer(self, loop: ast.For, pragma: LoopPragma, pre: list, run: _Run, post: list, depth: int,
              bounds: tuple | None = None, ahead: tuple | None = None, guard: ast.If | None = None) -> _Run:
        """The run of ``loop`` (at ``depth`` in the nest) around the flattened ``run`` of its inner loop.

        ``first`` (this flattened iteration begins an iteration of ``loop``) is carried;
        it holds whenever an enclosing loop's ``first`` does, so starting a run of
        ``loop`` only sets its counters.  The flags that decide the next iteration
        (``more``, ``has``) are computed on both sides of ``if first`` from carried
        values, which keeps the loop's control recurrence to a select or two.
        """
        var = loop.target.id
        top = depth == 0
        start, stop, step = loop.iter.args
        counter, end, margin = self.counters(loop, var, start, stop, step.value, top)
        self.levels[loop] = (counter, end)
        first = self.hidden(loop, var, "first", BOOL)
        # The outermost loop's run is the flattened loop itself: no flags for an enclosing one.
        more = None if top else self.hidden(loop, var, "more", BOOL)
        has = None if top else self.hidden(loop, var, "has", BOOL)
        def empty(at):
            return [self.assign(run.more, self.const(0, at), at), self.assign(run.has, self.const(0, at), at)]
        start_inner = run.init if guard is None else [self.copy(guard, body=run.init, orelse=empty(guard))]
        following = self.binop(ast.Add, self.name(counter, loop), self.const(step.value, loop), loop)
        step_counter = [self.assign(counter, following, loop)]
        if top:
            # The flattened loop is rotated (see `statement`): its last iteration ends it. The test
            # reads the counter before its step, so that it waits for no select of this iteration,
            # and the break comes after the step, so that the step's commit does not wait for it.
            following = self.binop(ast.Add, self.name(counter, loop), self.const(step.value, loop), loop)
            last = self.hidden(loop, var, "final", BOOL)
            step_counter = [self.assign(last, self.not_(self.compare(following, self.name(end, loop), loop), loop),
                                        loop),
                            *step_counter,
                            self.at(ast.If(test=self.name(last, loop), body=[self.at(ast.Break(), loop)], orelse=[]),
                                    loop)]
        # Each iteration of `loop` is one run of the inner loop, unless a `continue` before it or
        # the `if` around it empties that run.
        iteration = None if guard is not None or _own_exits(pre, ast.Continue) else run.length
        if _own_exits(pre + post, ast.Continue):
            # `continue` between the loops: the rest of the outer iteration is skipped; after
            # one in `pre` the inner run is empty and `post` does not run.
            skip = self.hidden(loop, var, "skip", BOOL)
            begin = [self.loop_variable(loop, counter, depth, iteration),
                     self.assign(skip, self.const(0, loop), loop)] + self.guard(pre, None, skip)
            if _own_exits(pre, ast.Continue):
                begin.append(self.at(ast.If(test=self.not_(self.name(skip, loop), loop), body=start_inner,
                                            orelse=empty(loop)), loop))
            else:
                begin += start_inner
            finish = [self.at(ast.If(test=self.not_(self.name(skip, loop), loop), body=self.guard(post, None, skip),
                                     orelse=[]), loop)] + step_counter if post else step_counter
        else:
            begin = [self.loop_variable(loop, counter, depth, iteration)] + list(pre) + start_inner
            finish = list(post) + step_counter
        # `if first:` runs in the first flattened iteration of each iteration of `loop`; after
        # `first = run.end()`, in its last (the memory dependence analysis reads these facts).
        body = [self.positioned(ast.If(test=self.name(first, loop), body=begin, orelse=run.resume), loop,
                                depth, ("first",))]
        prologue = []
        if ahead is not None:
            upcoming = self.hidden(loop, var, "next", self.variables[var])
            body += self.fetch_ahead(loop, run, ahead, upcoming, counter, end, step.value)
            prologue += self.fetch_ahead(loop, run, ahead, upcoming, counter, end, 0)
        body += [*run.reset,
                self.positioned(ast.If(test=self.name(run.has, loop), body=run.step, orelse=[]), loop, depth + 1,
                                ("first", "last") if run.single else ()),
                *run.after,
                self.assign(first, run.end(), loop),
                self.positioned(ast.If(test=self.name(first, loop), body=finish, orelse=[]), loop, depth,
                                ("last",))]
        init, resume = [], []
        if not top:
            if bounds is not None:
                start, stop = (self.name(var_, loop) for var_ in bounds)
            init = self.start_run(loop, counter, end, margin, more, has, start, stop, step.value)
            resume = [self.assign(more, self.compare(self.name(counter, loop), self.name(margin, loop), loop),
                                  loop), self.assign(has, self.const(1, loop), loop)]

        def ended():
            # The run ends when the inner run ends on the last iteration of this loop.
            return self.at(_shaped(ast.BoolOp(op=ast.And(), values=[
                self.name(first, loop), self.not_(self.name(more, loop), loop)]), BOOL), loop)
        preamble = [self.assign(first, self.const(1, loop), loop)] + run.preamble
        return _Run(preamble, init, resume, has, [], body, [], ended, (loop.lineno,) + run.lines,
                    [pragma] + run.pragmas, _lines(pre + post + ([guard] if guard else [])) + run.between, end, more,
                    prologue, length=_run_length(loop, iteration))

    def fetch_ahead(self, loop: ast.For, run: _Run, ahead: tuple, upcoming: str, counter: str, end: str,
                    offset: int) -> list:
        """The inner loop's bounds for the iteration ``counter + offset`` of ``loop`` into the
        ``ahead`` variables, when that iteration exists (so no read goes out of range).
        ``offset`` is 0 before the loop, the step in every iteration."""
        var = loop.target.id
        next_start, next_stop, reuse, start, stop, _ = ahead
        replace = _Substitute(var, lambda at: self.name(upcoming, at))

        def value():
            counted = self.name(counter, loop)
            return self.binop(ast.Add, counted, self.const(offset, loop), loop) if offset else counted
        if not offset:
            fetched = [self.assign(upcoming, value(), loop),
                       self.assign(next_start, replace.visit(copy.deepcopy(start)), loop),
                       self.assign(next_stop, replace.visit(copy.deepcopy(stop)), loop)]
            return [self.at(ast.If(test=self.compare(value(), self.name(end, loop), loop), body=fetched,
                                   orelse=[]), loop)]

        def guarded(bound, keep):
            # A conditional expression, not an if: the read it guards (in Python) is then an
            # unconditional, speculated read in hardware, whose port waits for no condition.
            fetched = replace.visit(copy.deepcopy(bound))
            shape = Shape.cast(self.variables[keep])
            expression = ast.IfExp(test=self.compare(value(), self.name(end, loop), loop), body=fetched,
                                   orelse=self.name(keep, loop))
            return self.at(_shaped(expression, mux_shape(Shape.cast(getattr(fetched, SHAPE_ATTR)), shape)), loop)
        # The next value of the loop variable wraps past the loop's end; it is used only when it exists.
        out = [self.assign(upcoming, value(), loop)]
        if reuse:
            # The next run starts where this one stops (CSR rows): no second read.
            out.append(self.assign(next_start, self.name(run.end_var, loop), loop))
        else:
            out.append(self.assign(next_start, guarded(start, next_start), loop))
        out.append(self.assign(next_stop, guarded(stop, next_stop), loop))
        return out

    def start_run(self, loop, counter, end, margin, more, has, start, stop, step) -> list:
        """Statements starting a run of ``loop``: its counters, and ``more`` and ``has`` for
        the run's first iteration."""
        return [self.assign(counter, start, loop), self.assign(end, stop, loop),
                self.assign(margin, self.binop(ast.Sub, self.name(end, loop), self.const(step, loop), loop), loop),
                self.assign(more, self.compare(self.name(counter, loop), self.name(margin, loop), loop), loop),
                self.assign(has, self.compare(self.name(counter, loop), self.name(end, loop), loop), loop)]

    def innermost(self, loop: ast.For, pragma: LoopPragma, depth: int, bounds: tuple | None = None) -> _Run:
        if _returns(loop):
            raise _NotFlat(f"return on line {_returns(loop)[0].lineno}")
        var = loop.target.id
        start, stop, step = loop.iter.args
        counter, end, margin = self.counters(loop, var, start, stop, step.value)
        more = self.hidden(loop, var, "more", BOOL)
        has = self.hidden(loop, var, "has", BOOL)
        breaks = _own_exits(loop.body, ast.Break)
        continues = _own_exits(loop.body, ast.Continue)
        broke = self.hidden(loop, var, "break", BOOL) if breaks else None
        skip = self.hidden(loop, var, "skip", BOOL) if continues else broke
        reset = [self.assign(flag, self.const(0, loop), loop) for flag in dict.fromkeys((broke, skip))
                 if flag is not None]
        preamble, on_break = [], []
        ran_out = self.not_(self.name(more, loop), loop)
        if broke is not None:
            # A break ends the run in the *next* iteration, which does nothing but end it (the
            # code after the loop, the next outer step): that iteration is issued, as after a
            # top-level break, before the break's read and compare resolve, and squashed (its
            # body does not run) when the break is taken. So the choice between staying on the
            # row and starting the next waits for the break of the iteration before last (a
            # distance-2 recurrence through the read), not of the last. A break in the run's
            # last iteration ends it in that iteration, as the count does.
            pending = self.hidden(loop, var, "broke_before", BOOL)
            ends = self.hidden(loop, var, "ends", BOOL)
            preamble = [self.assign(pending, self.const(0, loop), loop)]
            ran_out = self.at(_shaped(ast.BoolOp(op=ast.Or(), values=[self.name(pending, loop), ran_out]), BOOL), loop)
            reset += [self.at(ast.If(test=self.name(pending, loop), body=[self.assign(has, self.const(0, loop), loop)],
                                     orelse=[]), loop),
                      self.assign(ends, ran_out, loop), self.assign(pending, self.const(0, loop), loop)]
            # Set at the break itself (not from its flag afterwards): one select less after the compare.
            on_break = [self.assign(pending, self.name(more, loop), loop)]
        step_body = [self.loop_variable(loop, counter, depth, 1)] + self.guard(loop.body, broke, skip, on_break)
        # Stepped in every flattened iteration: after an empty run the next iteration starts a new one.
        after = [self.assign(counter, self.binop(ast.Add, self.name(counter, loop),
                                                 self.const(step.value, loop), loop), loop)]

        def ended():
            return ran_out if broke is None else self.name(ends, loop)
        if bounds is not None:
            start, stop = (self.name(var_, loop) for var_ in bounds)
        init = self.start_run(loop, counter, end, margin, more, has, start, stop, step.value)
        resume = [self.assign(more, self.compare(self.name(counter, loop), self.name(margin, loop), loop), loop),
                  self.assign(has, self.const(1, loop), loop)]
        # A break ends its run one iteration after it (or not at all): no constant length.
        return _Run(preamble, init, resume, has, reset, step_body, after, ended, (loop.lineno,), [pragma], [], end,
                    more, single=True, length=None if breaks else _run_length(loop, 1))

    def loop_variable(self, loop: ast.For, counter: str, depth: int, length: int | None) -> ast.Assign:
        """``var = counter``, in the iterations of ``loop`` that run: tagged with the loop's
        bounds, its depth in the nest and how many flattened iterations each of its iterations
        takes (``length``, when one constant), so the IR builder knows the value is in its
        range there, which levels are around it, and where its iterations start."""
        assign = self.assign(loop.target.id, self.name(counter, loop), loop.target)
        start, stop, step = loop.iter.args
        setattr(assign, COUNTER_ATTR, (start, stop, step.value, depth, length))
        return assign

    def positioned(self, node: ast.If, where, depth: int, positions: tuple) -> ast.If:
        """``node`` placed at ``where``, tagged (when ``positions`` is not empty) with the
        iterations of the level at ``depth`` in which its body runs (see :data:`POSITION_ATTR`)."""
        node = self.at(node, where)
        if positions:
            setattr(node, POSITION_ATTR, (depth, positions))
        return node

    def guard(self, stmts: list, broke: str | None, skip: str | None, on_break: list = ()) -> list:
        """``stmts`` with ``continue`` (and, when ``broke`` is given, ``break``) turned into
        flags, and what follows them guarded by ``not skip``.  Without ``broke`` a ``break``
        stays: it is a break of the flattened loop itself.  A ``break`` also runs ``on_break``."""
        kinds = (ast.Break, ast.Continue) if broke is not None else (ast.Continue,)
        out = []
        for index, stmt in enumerate(stmts):
            if isinstance(stmt, ast.Break) and broke is not None:
                out += [self.assign(flag, self.const(1, stmt), stmt) for flag in dict.fromkeys((broke, skip))]
                out += [self.at(copy.deepcopy(extra), stmt) for extra in on_break]
                return out
            if isinstance(stmt, ast.Continue):
                out.append(self.assign(skip, self.const(1, stmt), stmt))
                return out
            if isinstance(stmt, ast.If) and _own_exits([stmt], kinds):
                out.append(self.copy(stmt, body=self.guard(stmt.body, broke, skip, on_break),
                                     orelse=self.guard(stmt.orelse, broke, skip, on_break)))
                rest = self.guard(stmts[index + 1:], broke, skip, on_break)
                if rest:
                    out.append(self.at(ast.If(test=self.not_(self.name(skip, stmt), stmt), body=rest,
                                              orelse=[]), stmt))
                return out
            out.append(stmt)
        return out

    # -- hidden variables and typed nodes ----------------------------------------------------

    def counters(self, loop: ast.For, var: str, start: ast.expr, stop: ast.expr,
                 step: int, top: bool = False) -> tuple[str, str, str | None]:
        """Hidden variables of ``loop``: its counter, its stop, and stop minus step (the counter
        is below it exactly when another iteration follows)."""
        # As wide as the IR builder's own counters: every value up to one step past the end.
        stop_shape = Shape.cast(getattr(stop, SHAPE_ATTR))
        shapes = [Shape.cast(getattr(start, SHAPE_ATTR)), stop_shape, Shape.cast(self.variables[var])]
        width = max(s.width + (0 if s.signed else 1) for s in shapes) + 1 + max(1, abs(step).bit_length())
        margin_shape = binary_shape(ast.Sub, stop_shape, const_shape(step))
        return (self.hidden(loop, var, "counter", signed(width)), self.hidden(loop, var, "stop", stop_shape),
                None if top else self.hidden(loop, var, "last", margin_shape))

    def hidden(self, loop: ast.For, var: str, role: str, shape: Shape) -> str:
        name = f"{_PREFIX}{loop.lineno}_{var}_{role}"
        suffix = 1
        while name in self.variables:
            suffix += 1
            name = f"{_PREFIX}{loop.lineno}_{var}_{role}{suffix}"
        self.variables[name] = shape
        self.display_names[name] = f"{self.typed.display_name(var)}_{role}"
        return name

    def at(self, node, where):
        node = ast.copy_location(node, where)
        if hasattr(where, "hls_filename"):
            node.hls_filename = where.hls_filename
        return node

    def name(self, var: str, where) -> ast.Name:
        return self.at(_shaped(ast.Name(id=var, ctx=ast.Load()), self.variables[var]), where)

    def const(self, value: int, where) -> ast.Constant:
        return self.at(_shaped(ast.Constant(value=value), const_shape(value)), where)

    def binop(self, op, left, right, where) -> ast.BinOp:
        shape = binary_shape(op, getattr(left, SHAPE_ATTR), getattr(right, SHAPE_ATTR))
        return self.at(_shaped(ast.BinOp(left=left, op=op(), right=right), shape), where)

    def compare(self, left, right, where) -> ast.Compare:
        return self.at(_shaped(ast.Compare(left=left, ops=[ast.Lt()], comparators=[right]), BOOL), where)

    def not_(self, operand, where) -> ast.UnaryOp:
        return self.at(_shaped(ast.UnaryOp(op=ast.Not(), operand=operand),
                               unary_shape(ast.Not, getattr(operand, SHAPE_ATTR))), where)

    def assign(self, var: str, value, where) -> ast.Assign:
        target = self.at(_shaped(ast.Name(id=var, ctx=ast.Store()), self.variables[var]), where)
        return self.at(ast.Assign(targets=[target], value=value, type_comment=None), where)


def _run_length(loop: ast.For, iteration: int | None) -> int | None:
    """Flattened iterations in every run of ``loop``, each of whose iterations takes
    ``iteration`` of them: constant when its bounds are (an empty run takes one)."""
    start, stop, step = (_constant(arg) for arg in loop.iter.args)
    if iteration is None or start is None or stop is None:
        return None
    return max(1, len(range(start, stop, step)) * iteration)


def _constant(node) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _constant(node.operand)
        return None if value is None else -value
    return None


class _Substitute(ast.NodeTransformer):
    """Replaces loads of the variable ``var`` with ``make(node)``."""

    def __init__(self, var: str, make):
        self.var = var
        self.make = make

    def visit_Name(self, node: ast.Name):
        if node.id == self.var and isinstance(node.ctx, ast.Load):
            return self.make(node)
        return node


def _shaped(node, shape):
    setattr(node, SHAPE_ATTR, shape)
    return node
