"""Running many games for designers: the engine benchmark (``triage bench``), the simulator that
plays bots at scale on local workers or Ray and writes Parquet rows (``triage simulate``), and the
balance figures and HTML report built from those rows (``triage report``)."""
