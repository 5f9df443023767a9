// An 8-bit lower-part OR adder (LOA, l = 4) written by hand, as a third-party
// circuit would be: `axhls units eval --verilog examples/loa8.v --top loa8
// --kind add --width 8` gives the same metrics as `axhls units eval loa
// --width 8 --param l=4`.
module loa8(input [7:0] a, input [7:0] b, output [8:0] o);
    wire [3:0] low = a[3:0] | b[3:0];
    wire carry = a[3] & b[3];
    wire [4:0] high = a[7:4] + b[7:4] + carry;
    assign o = {high, low};
endmodule
