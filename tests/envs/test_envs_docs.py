"""docs/research.md: its examples run and its worked figures are the encoding's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from triage.engine import Game, load_standard_deck, make_config, view
from triage.envs import IllegalActionError, Layout, Table
from triage.envs.features import ObservationEncoder

DOCS = Path(__file__).resolve().parents[2] / "docs" / "research.md"


def _examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_page_has_one_short_example_per_library() -> None:
    examples = _examples()
    assert len(examples) == 3
    for code, library in zip(examples, ("pyspiel", "pettingzoo", "gymnasium")):
        assert library in code
        assert len(code.strip().splitlines()) <= 16


@pytest.mark.parametrize("number", [0, 1, 2], ids=["openspiel", "pettingzoo", "gymnasium"])
def test_each_example_runs(number: int, capsys: pytest.CaptureFixture[str]) -> None:
    code = compile(_examples()[number], f"docs/research.md example {number + 1}", "exec")
    exec(code, {})  # noqa: S102 - the page's own example, run as a reader would
    assert re.search(r"\d", capsys.readouterr().out)


def test_the_worked_figures_are_the_encodings() -> None:
    layout = Layout.from_view(view(Game.new(players=2, seed=0), 0))
    text = DOCS.read_text(encoding="utf-8")
    assert f"**{layout.num_actions} integers**" in text
    assert f"**{layout.observation_size} numbers**" in text
    for block, count in layout.blocks:
        assert f"| `{block}` |" in text and f"| {layout.offsets[block]} | {count} |" in text
    assert (
        "= 171` (the heal block" in text
        and '"heal the patient in\nspace 2 by 1, paid with one Staff"' in text
    )
    assert layout.index("heal", 1, 0, 1, 0) == 171
    assert layout.describe(171) == "heal the patient in space 2 by 1 (staff 1, congress 0, tokens the rest)"


def test_the_quoted_sizes_of_the_observation_are_the_encodings() -> None:
    layout = Layout.from_view(view(Game.new(players=2, seed=0), 0))
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    sizes = [
        ObservationEncoder(layout, make_config(), load_standard_deck(), players, normalize=True).size
        for players in (1, 2, 3, 4)
    ]
    discard = ObservationEncoder(
        layout, make_config({"return_to": "discard"}), load_standard_deck(), 1, normalize=True
    )
    census = layout.census
    assert f"{sizes[0]}, {sizes[1]}, {sizes[2]} and {sizes[3]} numbers" in text
    assert f"(of {layout.observation_size}; {discard.size - sizes[0]} more with" in text
    assert f"`-` for none: {len(census.backs)} with the standard deck" in text
    assert f"{len(census.classes)} classes with the standard deck" in text


def test_the_quoted_refusal_is_the_real_message() -> None:
    table = Table.deal(players=1, seed=0)
    while table.game.phase != "treatment":
        table.play(0, table.legal_ids(0)[0])
    with pytest.raises(IllegalActionError) as refused:
        table.play(0, table.layout.index("buy", 4))
    assert f"`{refused.value}`" in DOCS.read_text(encoding="utf-8").replace("\n", " ")


def test_the_quoted_length_of_the_public_record_is_the_games() -> None:
    import pyspiel

    import triage.envs.openspiel  # noqa: F401 - registers "triage"

    game = pyspiel.load_game("triage", {"players": 2})
    record = game.settings.record  # type: ignore[attr-defined]
    bounds = game.bounds  # type: ignore[attr-defined]
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert f"{bounds.max_decisions} + 2 x {bounds.draws} = {record.length} entries after the" in text
    assert game.information_state_tensor_shape() == [record.length + game.observation_tensor_shape()[0]]


def test_the_bounds_table_is_the_codes() -> None:
    from triage.envs.bounds import bounds_table

    text = DOCS.read_text(encoding="utf-8")
    assert "\n".join("  " + line for line in bounds_table().splitlines()) in text


def test_the_self_play_example_runs() -> None:
    """The page's self-play example (PettingZoo -> SelfPlayEnv -> SB3's MaskablePPO), as written."""
    pytest.importorskip("sb3_contrib")
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("## Self-play and opponents without glue", 1)[1]
    code = re.search(r"```py\n(.*?)```", section, flags=re.DOTALL)
    assert code is not None and "SelfPlayEnv" in code.group(1)
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), "docs/research.md self-play example", "exec"), namespace)  # noqa: S102
    assert namespace["model"].num_timesteps >= 256  # type: ignore[attr-defined]


def test_the_scales_table_is_the_encoders() -> None:
    from triage.envs.features import scale_table

    text = DOCS.read_text(encoding="utf-8")
    assert f"<!-- scales -->\n{scale_table()}\n<!-- /scales -->" in text
