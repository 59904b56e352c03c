"""Each ranking signal earns its place: a small labelled fixture where the right file comes
out on top only with the lexical signal, only with the static vectors, and higher only with
the transformer stage.

Checked when written: with BM25 taken out of the fusion the ticket file falls from 1st to
8th; with static vectors taken out the garage file falls to last; with the stage off
(--fast, asserted below) the bees file stands lower. Then the path field: a small code tree
where only the file's name says its topic, and the field raising a file but never sinking one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import rrg_cmd, run
from rrg.rank.head_passages import MIN_FILES, files_within
from rrg.rank.scoring import lexical_signal, zscore

TOPICS = {
    "cooking": "Simmer the onions slowly in butter until golden, then add garlic and thyme.",
    "gardening": "Plant tomato seedlings after the last frost and water them deeply twice a week.",
    "knitting": "Cast on sixty stitches with wool yarn and knit a ribbed border for the scarf.",
    "astronomy": "The telescope shows Jupiter's moons as bright points beside the giant planet.",
    "sailing": "Trim the mainsail and ease the sheet as the boat turns downwind in the harbor.",
    "painting": "Mix ultramarine with burnt sienna to paint shadows on the watercolor landscape.",
    "chess": "Castle early, develop the knights and bishops, and control the central squares.",
    "hiking": "The trail climbs through pine forest to a ridge with views over the valley.",
    "baking": "Knead the dough for ten minutes, let it rise, then bake the loaf until brown.",
    "music": "Practice scales on the violin slowly with a metronome before playing the sonata.",
}
TICKET = (
    "Facilities log: the printer on floor two jammed again; ticket {} was opened and a "
    "technician called.\n"
)


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("labelled")
    for name, text in TOPICS.items():
        for j in range(5):
            (root / f"{name}-{j}.txt").write_text(f"{text} Note {j} about {name}.\n" * 3)
    for j in range(6):
        (root / f"billing-{j}.txt").write_text(
            "The billing service sends invoices and retries failed payments for each "
            "customer account. " * 2 + "\n"
        )
    # Lexical: only the exact code tells the tickets apart (their WordPieces are shared).
    for code in ("E4019", "E4033", "E2021", "E1121", "E4020", "E4022", "E4012", "E3021"):
        (root / f"log-{code}.txt").write_text(TICKET.format(code))
    for code in ("E4121", "E4011"):
        (root / f"log-{code}.txt").write_text(TICKET.format(code))
    (root / "zz-ticket.txt").write_text(TICKET.format("E4021"))
    # Static: no word in common with its query.
    (root / "zz-garage.txt").write_text(
        "The mechanic at the garage fixes car engines, brakes and tyres for drivers in town.\n"
    )
    # Transformer: the answer never says "honey"; four files say it and mean something else.
    (root / "zz-bees.txt").write_text(
        "Bees collect nectar from flowers and turn it into a sweet golden food that they "
        "store in wax combs.\n"
    )
    (root / "aa-honey-market.txt").write_text(
        "Honey prices rose again this year, the market report says, led by exports.\n"
    )
    (root / "ab-honey-cake.txt").write_text(
        "For the cake, whisk two eggs with a spoon of honey and a cup of flour.\n"
    )
    (root / "ac-honey-show.txt").write_text(
        "Honey, I'm home! was a sitcom catchphrase repeated in every episode of the show.\n"
    )
    (root / "ad-honey-jar.txt").write_text(
        "The label on the jar lists honey, lemon juice and ginger as the ingredients.\n"
    )
    return root


def rank_of(name: bytes, root: Path, env: dict[str, str], *args: str) -> int:
    out = run([*rrg_cmd(), *args, "--files"], root, env)
    assert out.returncode == 0, out.stderr
    return out.stdout.split().index(name) + 1


def test_the_exact_code_wins_by_the_lexical_signal(labelled: Path, env: dict[str, str]) -> None:
    assert rank_of(b"zz-ticket.txt", labelled, env, "-q", "ticket E4021") == 1


def test_a_file_sharing_no_word_wins_by_static_vectors(labelled: Path, env: dict[str, str]) -> None:
    assert rank_of(b"zz-garage.txt", labelled, env, "-q", "automobile repair shop") == 1


def test_the_transformer_stage_lifts_the_answer(labelled: Path, env: dict[str, str]) -> None:
    query = "which insect produces honey"
    staged = rank_of(b"zz-bees.txt", labelled, env, "-q", query)
    cheap = rank_of(b"zz-bees.txt", labelled, env, "-q", query, "--fast")
    assert staged < cheap


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small code tree where the file named after the topic says the topic's words only
    in its name; notes elsewhere say them in their text, more than once."""
    root = tmp_path_factory.mktemp("repository")
    (root / "parsers").mkdir()
    (root / "docs").mkdir()
    (root / "parsers" / "yaml_loader.py").write_text(
        "def load(stream):\n    text = stream.read()\n    return build(tokens(text))\n"
    )
    for name in ("json_reader.py", "csv_rows.py", "ini_sections.py"):
        (root / "parsers" / name).write_text(
            "def read(stream):\n    return [line.split() for line in stream]\n"
        )
    for j in range(4):
        (root / "docs" / f"release-{j}.txt").write_text(
            f"Release {j}: the yaml files now load faster; the loader for yaml and the "
            "loader for json share one reader, and tabs are kept.\n"
        )
    return root


def test_a_file_named_after_the_topic_wins_by_its_path(
    repository: Path, env: dict[str, str]
) -> None:
    # The cheap tier's order (the stage's model, reading the notes, may then prefer them).
    # Checked when written: with the path field's weight at 0 the loader falls to 5th,
    # behind the four release notes (its name's words count once among its text's).
    rank = rank_of(b"parsers/yaml_loader.py", repository, env, "-q", "yaml loader", "--fast")
    assert rank == 1


def test_a_word_missing_from_a_path_says_nothing_against_its_file() -> None:
    # A question naming the package: its word is in 99 paths of 100. The one file outside
    # the package, best by its text, keeps its text's score (the whole z-score, with the
    # path's -9.9 deviations, sank it below every other file: checked when written).
    text = np.array([1.0] * 99 + [2.0])
    path = np.array([0.1] * 99 + [0.0])
    lexical = lexical_signal(text, path)
    assert int(lexical.argmax()) == 99
    assert lexical[99] == pytest.approx(zscore(text)[99])


def test_a_variant_of_the_tuning_is_the_one_that_ranks(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chosen constants reach the ranking through the object passed down, not through
    module globals: a benchmark's variant (here the prose penalty, and code cut at blank
    lines) changes the order and the passages, and the shipped point is untouched."""
    import os
    from dataclasses import replace

    from rrg.index.served import ServedRoot
    from rrg.model.registry import default_model
    from rrg.rank.entry_points import best_paragraphs
    from rrg.rank.files import RankSettings, rank_files
    from rrg.rank.tuning import TUNING

    for name in ("RRG_CACHE_DIR", "RRG_INDEX_WAIT_S"):
        monkeypatch.setenv(name, env[name])
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    for k in range(6):
        (root / "src" / f"mod{k}.py").write_text(f"def helper_{k}(x):\n    return x + {k}\n")
    (root / "src" / "retry.py").write_text(
        "def retry(call):\n    return call()\n\n\ndef backoff(n):\n    return 2 ** n\n"
    )
    (root / "README.md").write_text("Retry with backoff: retry, retry, backoff, retry.\n")
    monkeypatch.chdir(root)
    paths = sorted(str(p.relative_to(root)).encode() for p in root.rglob("*") if p.is_file())
    spec = default_model()

    def served() -> ServedRoot:
        return ServedRoot(os.fsencode(root), spec)

    def order(**changed: object) -> list[bytes]:
        # The passage tier off: it fuses its own order of the passages (where the README's
        # words are dense) with the cheap order, and the penalty alone is tested here.
        tuning = replace(TUNING, passage_tier_weight=0.0, **changed)
        settings = RankSettings(0, lambda message: None, tuning=tuning)
        ranking = rank_files("retry with backoff", served(), paths, settings)
        assert ranking.tuning == tuning
        return ranking.ordered

    shipped, none, heavy = order(), order(prose_penalty=0.0), order(prose_penalty=50.0)
    assert none.index(b"README.md") < heavy.index(b"README.md") == len(paths) - 1
    assert shipped == order()  # the variants left nothing behind
    settings = RankSettings(0, lambda message: None, tuning=replace(TUNING, code_passages=False))
    ranking = rank_files("retry with backoff", served(), paths, settings)
    found = {p.text for path, p in best_paragraphs(ranking, 10)}
    assert any("def retry" in text and "def backoff" in text for text in found), found
    ranking = rank_files("retry with backoff", served(), paths, RankSettings(0, print))
    found = {p.text for path, p in best_paragraphs(ranking, 10)}
    assert not any("def retry" in text and "def backoff" in text for text in found), found


def test_a_query_reads_files_until_their_words_pass_the_budget() -> None:
    """The stage's and the tier's files, in order until the next would pass the budget,
    never fewer than MIN_FILES, never more than it is given; no budget reads them all."""
    lengths = np.array([40_000] * 25)
    assert files_within(lengths, 250_000) == 6  # 6 x 40K = 240K; the 7th would pass it
    assert files_within(lengths, 240_000) == 6  # exactly at the budget: read
    assert files_within(lengths, 0) == 25
    assert files_within(lengths, 10_000_000) == 25
    assert files_within(np.array([300_000] * 25), 250_000) == MIN_FILES
    assert files_within(np.array([10] * 3), 1) == 3
