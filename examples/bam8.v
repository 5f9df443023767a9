// An 8 x 8-bit broken-array multiplier (BAM): the partial products a[i] & b[j]
// of the columns i + j < 6 are left out. Written by hand, as a third-party
// circuit would be: `axhls units eval --verilog examples/bam8.v --top bam8
// --kind mul` gives the same metrics as `axhls units eval trunc_mul --width 8
// --param c=6`.
module bam8(input [7:0] a, input [7:0] b, output [15:0] o);
    localparam DROPPED = 6;
    reg [15:0] sum;
    integer i, j;
    always @* begin
        sum = 16'd0;
        for (i = 0; i < 8; i = i + 1)
            for (j = 0; j < 8; j = j + 1)
                if (i + j >= DROPPED)
                    sum = sum + ((a[i] & b[j]) << (i + j));
    end
    assign o = sum;
endmodule
