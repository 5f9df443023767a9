"""gsumif, the kernel of issue 4: Python that is also pipelined hardware.

Run it::

    python examples/gsumif.py                  # the golden model on a few inputs
    python examples/gsumif.py --verilog out.v  # also write the hardware's Verilog
    axhls check examples/gsumif.py:gsumif --args examples/gsumif_args.json
    axhls report examples/gsumif.py:gsumif
"""

import argparse

import hls
from amaranth import signed, unsigned


@hls.kernel
def gsumif(a: hls.Array[signed(16), 64], n: unsigned(7)) -> signed(32):
    s: signed(32) = 0
    for i in range(n):
        d = a[i]
        if d >= 0:
            s = s + d * d
        else:
            s = s - d
    return s


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verilog", metavar="PATH", help="write the kernel's Verilog to PATH")
    arguments = parser.parse_args()

    data = [3, -4, 5, -6] + [0] * 60
    print("gsumif(n=4) =", gsumif(a=data, n=4))           # 3*3 + 4 + 5*5 + 6 = 44
    print("gsumif(n=0) =", gsumif(a=data, n=0))           # zero trip count: 0
    ramp = list(range(-32, 32))
    print("gsumif(ramp) =", gsumif(a=ramp, n=64))
    if arguments.verilog:
        print("wrote", gsumif.to_verilog(arguments.verilog))


if __name__ == "__main__":
    main()
