"""What the test suite and the benchmarks share: the app in a server, a browser and AppTest.

``harness.browser`` starts ``streamlit run app.py`` and headless Chromium and drives pages;
``harness.apptest`` runs a page in-process with Streamlit's AppTest and reads its figures;
``harness.reference`` is the literal, slow re-statement of the authors' bucketing and test
that the fast kernels are checked against (and timed against in benchmarks/bench_detector.py);
``harness.logs`` makes the prediction logs the monitor's tests and benchmarks read.
Neither tests/ nor benchmarks/ imports the other's private helpers: both import these.
"""
