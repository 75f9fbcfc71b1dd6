"""``python -m triage``: the same as the ``triage`` command (handy without the entry point installed)."""

from triage.cli import main

if __name__ == "__main__":
    main()
