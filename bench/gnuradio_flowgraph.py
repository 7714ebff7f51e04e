#!/usr/bin/env python3
"""A headless GNU Radio recorder: a complex cosine (the usual SDR IQ stream)
paced by a throttle, cut by a head block, recorded by blocks.file_sink.

gnuradio_flowgraph.py OUT SAMPLES RATE
  OUT      the file the sink writes (complex float32 pairs, 8 bytes a sample)
  SAMPLES  how many samples to record
  RATE     samples per second the throttle lets through

The source is deterministic (a fixed-point NCO), so the same arguments give the
same bytes wherever the file is written. Prints the seconds the flowgraph ran.
Used by bench/gnuradio_sink.sh.
"""
import sys
import time

from gnuradio import analog, blocks, gr


def main(out, samples, rate):
    tb = gr.top_block("streamdisk file sink")
    src = analog.sig_source_c(rate, analog.GR_COS_WAVE, rate / 64, 0.5, 0)
    throttle = blocks.throttle(gr.sizeof_gr_complex, rate, True)
    head = blocks.head(gr.sizeof_gr_complex, samples)
    sink = blocks.file_sink(gr.sizeof_gr_complex, out, False)
    sink.set_unbuffered(False)
    tb.connect(src, throttle, head, sink)
    t0 = time.monotonic()
    tb.run()
    sink.close()
    print(f"{time.monotonic() - t0:.3f}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3])))
