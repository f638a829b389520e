"""The lab's benchmark tools on the host: running the allocator
benchmarks, summarizing, checking, comparing and plotting their results.
Run as python3 -m labbench.MODULE with bench/ on PYTHONPATH (the Makefile
does)."""
