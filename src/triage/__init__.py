"""Triage: a digital home for a hospital board game's "Patients and Treatment" chapter."""

__version__ = "0.1.0"
