"""Research interfaces: Triage for OpenSpiel, PettingZoo and Gymnasium (docs/research.md).

The adapters live in their own modules so that each library is imported only when used:

* ``import triage.envs.openspiel`` registers the OpenSpiel game ``triage``;
* ``triage.envs.pettingzoo.env()`` / ``raw_env`` is the PettingZoo AEC environment;
* ``import triage.envs.gymnasium`` registers the Gymnasium environment ``Triage-v0`` (solo).

All three share :mod:`triage.envs.encoding` (the engine's integer action space and the
observation vector of a seat's view), :mod:`triage.envs.table` (one game, seat by seat),
:mod:`triage.envs.returns` (``returns``: score, margin or win), :mod:`triage.envs.bounds`
(proven score and length bounds) and :mod:`triage.envs.features` (flat and normalised
observations). ``python -m triage.envs.bench`` measures their speed against the engine.
"""

from triage.envs.encoding import EncodingError, IllegalActionError, Layout
from triage.envs.table import Table, make_game_config

__all__ = ["EncodingError", "IllegalActionError", "Layout", "Table", "make_game_config"]
