"""The Amaranth back end: scheduled IR to a ``wiring.Component`` (see ``docs/compiler.md``)."""

from .component import ControlSignature, KernelComponent, KernelSignature, kernel_signature, port_name_of_result

__all__ = ["ControlSignature", "KernelComponent", "KernelSignature", "kernel_signature", "port_name_of_result"]
