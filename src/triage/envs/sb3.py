"""The native vector environment as a Stable-Baselines3 ``VecEnv``, with ``action_masks()``.

Stable-Baselines3 takes its own ``VecEnv`` class, not Gymnasium's vector environments ("not a
Gymnasium environment"). :class:`TriageVecEnv` adapts :class:`~triage.envs.vector.TriageVectorEnv`
(in Gymnasium's same-step autoreset mode, which is SB3's: a game that ends is dealt anew in the
same step, its last observation in ``info["terminal_observation"]``) so that sb3-contrib's
``MaskablePPO`` learns on N games stepped in one call, its masks asked of ``action_masks()``
through ``env_method`` as for any vector environment of SB3.

>>> from triage.envs.sb3 import TriageVecEnv
>>> envs = TriageVecEnv(num_envs=2, observation="flat", normalize=True)
>>> envs.reset().shape[0], envs.action_masks().shape[0]
(2, 2)

Every option of ``Triage-v0`` (``players``, ``opponents``, ``returns``, ``observation``,
``normalize``, ``config``, ...) passes through; ``seed(s)`` before ``reset()`` deals game i with
seed ``s + i``, as SB3's ``make_vec_env`` seeds its environments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from triage.envs.vector import TriageVectorEnv


class TriageVecEnv(VecEnv):
    """N games of ``Triage-v0`` in one :class:`TriageVectorEnv`, as SB3 steps vector envs."""

    def __init__(self, num_envs: int = 8, **options: Any) -> None:
        self.venv = TriageVectorEnv(num_envs=num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **options)
        super().__init__(num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._actions = np.zeros(num_envs, np.int64)

    def reset(self) -> VecEnvObs:
        observations, infos = self.venv.reset(seed=list(self._seeds))
        self._reset_seeds()
        self.reset_infos = [self._info(infos, index) for index in range(self.num_envs)]
        result: VecEnvObs = observations
        return result

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        observations, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        dones = terminated | truncated
        listed = [self._info(infos, index) for index in range(self.num_envs)]
        if "final_obs" in infos:
            for index in np.flatnonzero(infos["_final_obs"]):
                listed[index]["terminal_observation"] = infos["final_obs"][index]
                listed[index]["TimeLimit.truncated"] = bool(truncated[index] and not terminated[index])
                listed[index]["winner"] = int(infos["final_info"]["winner"][index])
                listed[index]["final_score"] = int(infos["final_info"]["score"][index])
        return observations, rewards.astype(np.float32), dones, listed

    def _info(self, infos: dict[str, Any], index: int) -> dict[str, Any]:
        """Game ``index``'s info as SB3 lists them: its score and, where refused, why (SB3's
        and Gymnasium's APIs leave infos open, string keys and any values: ``step_wait`` adds more)."""
        info: dict[str, Any] = {"score": int(infos["score"][index])}
        if "illegal_action" in infos and infos["_illegal_action"][index]:
            info["illegal_action"] = infos["illegal_action"][index]
        return info

    def action_masks(self) -> np.ndarray:
        """Every game's legal actions as booleans, ``(num_envs, actions)``."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    # ------------------------------------------------------------------ SB3's per-environment calls
    # The games share one environment object: an attribute is the same for every index, and the
    # one method asked per environment is action_masks (sb3-contrib's get_action_masks).

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = self.action_masks if attr_name == "action_masks" else getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[index] for index in chosen]
        raise AttributeError(
            f"TriageVecEnv answers env_method('action_masks') only, got {method_name!r}: the games "
            "share one vector environment (self.venv)"
        )

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        images = self.venv.render() if self.venv.render_mode == "rgb_array" else None
        return list(images) if images is not None else [None] * self.num_envs


__all__ = ["TriageVecEnv"]
