"""The compile target: the clock, the limits on operator instances, and the device.

A :class:`Target` is built and validated once, then handed to
:func:`hls.compiler.compile_kernel`, which gives it to the scheduling
problems (:func:`hls.analysis.block_problems.build_problem`).  The front end and the
IR never see it, so one kernel compiles for several targets::

    fast = compile_kernel(k, target=hls.Target(clock_mhz=200))
    small = compile_kernel(k, target=hls.Target(resources={"mul": 1}))

``@hls.kernel(clock_mhz=..., resources=...)`` is a shorthand for the kernel's
default target, ``@hls.kernel(target=hls.Target(...))`` the long form.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from approx_units.devices import DEVICES, DelayModel

from .ir.ops import limitable_resources, operator_of

__all__ = ["Target", "DEFAULT_CLOCK_MHZ"]

#: The clock target when none is given, in MHz.
DEFAULT_CLOCK_MHZ = 100.0


@dataclass(frozen=True)
class Target:
    """What a kernel is compiled for.

    Parameters
    ----------
    clock_mhz : float
        Clock target of the scheduler, in MHz: above 0 and below
        ``1000 / register_setup`` of the device's delay model (500 MHz on ECP5),
        where the registers alone would fill the period.  Default
        :data:`DEFAULT_CLOCK_MHZ`.
    resources : mapping of str to int
        Limits on operator instances, for example ``{"mul": 1}``; names are
        those of the operator table (``mul``, ``div``, ``floordiv``, ``mod``),
        limits positive integers.  Stored read-only.
    device : str
        A device with a calibrated delay model (:data:`approx_units.devices.DEVICES`):
        ``"ecp5"`` (the default) or ``"ice40"``.  The compiler reaches the device's
        numbers only through :attr:`delay_model`.

    Raises
    ------
    ValueError
        A clock out of range, an unknown resource name or device, a limit below 1.
    TypeError
        A value of the wrong type.
    """

    clock_mhz: float = DEFAULT_CLOCK_MHZ
    resources: Mapping[str, int] = field(default_factory=dict)
    device: str = "ecp5"

    def __post_init__(self):
        clock = self.clock_mhz
        if isinstance(clock, bool) or not isinstance(clock, numbers.Real):
            raise TypeError(f"clock_mhz must be a number of MHz, not {clock!r}")
        if not isinstance(self.device, str) or self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(map(repr, DEVICES))} (the devices the delay "
                             f"model is calibrated for), not {self.device!r}")
        model = DEVICES[self.device]
        fastest = 1000.0 / model.register_setup
        if not clock > 0:
            raise ValueError(f"clock_mhz must be a positive number of MHz, not {clock!r} "
                             f"(allowed: 0 < clock_mhz < {fastest:g})")
        if clock >= fastest:
            # The registers alone fill the period: no operator could run in it.
            usable = 1000.0 / (model.register_setup + model.routing_hop)
            raise ValueError(f"clock_mhz={clock:g} leaves no time for logic: the registers alone take "
                             f"{model.register_setup:g} ns of its {1000.0 / clock:g} ns period "
                             f"(allowed: 0 < clock_mhz < {fastest:g}; use at most about {usable:.0f} MHz)")
        resources = {} if self.resources is None else self.resources
        if not isinstance(resources, Mapping):
            raise TypeError(f"resources must be a dict such as {{'mul': 1}}, not {resources!r}")
        known = limitable_resources()
        for key, value in resources.items():
            if not isinstance(key, str):
                raise TypeError(f"resource names are strings such as 'mul', not {key!r}")
            if key not in known:
                raise ValueError(f"resources: no operator named {key!r} can be limited "
                                 f"(allowed: {', '.join(map(repr, known))})")
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ValueError(f"resource limit {key!r} must be a positive integer, not {value!r}")
        object.__setattr__(self, "clock_mhz", float(clock))
        object.__setattr__(self, "resources", MappingProxyType({key: int(value) for key, value in resources.items()}))

    def __hash__(self):
        return hash((self.clock_mhz, tuple(sorted(self.resources.items())), self.device))

    def __eq__(self, other):
        if not isinstance(other, Target):
            return NotImplemented
        return (self.clock_mhz, dict(self.resources), self.device) == \
            (other.clock_mhz, dict(other.resources), other.device)

    def __repr__(self):
        return f"Target(clock_mhz={self.clock_mhz:g}, resources={dict(self.resources)!r}, device={self.device!r})"

    @property
    def period_ns(self) -> float:
        """The clock period in ns."""
        return 1000.0 / self.clock_mhz

    @property
    def usable_period_ns(self) -> float:
        """The period in ns left to logic between two registers."""
        return self.period_ns - self.delay_model.register_setup

    @property
    def delay_model(self) -> DelayModel:
        """The device's delay model: the ``model`` the operator table's delay formulas read."""
        return DEVICES[self.device]

    def operator_delay(self, kind: str, width: int, operand_widths: tuple[int, ...] = ()) -> float:
        """Combinational delay in ns of one operator on the target's device, with the hop
        to the next operator: its entry's formula in the operator table
        (:meth:`hls.ir.ops.Operator.delay`) over :attr:`delay_model`.

        Parameters
        ----------
        kind : str
            The IR operation kind (``"add"``, ``"mul"``, ``"lt"``, ``"select"``, ...).
        width : int
            Width of the result in bits.
        operand_widths : tuple of int
            Widths of the operands, where they matter (multipliers, dividers, shifts);
            0 for a constant shift amount.

        Raises
        ------
        ValueError
            For an unknown ``kind`` (:class:`hls.ir.ops.UnknownOperatorError`).
        """
        return operator_of(kind).delay(self.delay_model, width, tuple(operand_widths))

    def replace(self, **changes) -> "Target":
        """A copy with some parameters changed (validated again)."""
        values = {"clock_mhz": self.clock_mhz, "resources": dict(self.resources), "device": self.device}
        values.update(changes)
        return Target(**values)
