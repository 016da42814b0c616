"""Write the analysis notebooks and execute them against real results.

    python notebooks/make_notebooks.py            # write + execute against results/
    python notebooks/make_notebooks.py --no-run   # only write the .ipynb files
    python notebooks/make_notebooks.py inside_a_game.ipynb   # only the notebooks named

Each notebook reads the results folder named by the ``RUMMISIM_RESULTS``
environment variable (default: the shipped run in ``results/``), so the tests
can execute the same notebooks against a small run. The notebooks use only the
public API: ``rummisim.load_results``, ``rummisim.stats``, ``rummisim.plots``
and pandas; ``inside_a_game`` also reads ``turns.parquet`` (``rummisim.store.load_turns``) and
replays a sample of games with ``rummisim.engine.play_game`` and the referee's solver.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

SETUP = """\
%matplotlib inline
import os
from pathlib import Path

import pandas as pd

import rummisim
from rummisim import plots, stats

pd.set_option("display.width", 160)
RESULTS = Path(os.environ.get("RUMMISIM_RESULTS", "{default}"))
data = rummisim.load_results(RESULTS)
games, seats = stats.completed(data["games"], data["seats"])
matches = data["matches"]
keys = data["manifest"]["experiment"]["sweep_keys"]
print(f"{{RESULTS}}: {{data['manifest']['experiment']['name']}}, "
      f"{{games['cell'].nunique()}} cells, {{len(data['matches'])}} games, {{len(games)}} rounds")"""

CI = """\
def ci(value, low, high, percent=False, digits=1):
    scale, unit = (100, "%") if percent else (1, "")
    return f"{value * scale:.{digits}f}{unit} [{low * scale:.{digits}f}, {high * scale:.{digits}f}]\""""


def compare_variants() -> list:
    return [
        new_markdown_cell(
            "# Comparing rule variants\n\n"
            "Every built-in profile played by four `greedy` bots on the same deals "
            "(`configs/experiments/variants.yaml`; reproduce with "
            "`rummisim run configs/experiments/variants.yaml`). Cell 0 is `standard`. Because "
            "cells share deals and seat rotations, differences are paired: each variant is compared "
            "with `standard` on the same deal, rotation and round."
        ),
        new_code_cell(SETUP.format(default="../results/variants")),
        new_code_cell(CI),
        new_markdown_cell("## Summary per variant (95% intervals)"),
        new_code_cell(
            "summary = stats.summarize(data['games'], data['seats'], matches, keys=keys)\n"
            "pd.DataFrame({\n"
            "    'variant': summary['cell_label'],\n"
            "    'turns per round': [ci(r.turns_mean, r.turns_mean_low, r.turns_mean_high) "
            "for r in summary.itertuples()],\n"
            "    'first player wins': [ci(r.first_seat_win_rate, r.first_seat_low, r.first_seat_high, True) "
            "for r in summary.itertuples()],\n"
            "    'pool exhausted': [ci(r.pool_exhausted_rate, r.pool_exhausted_low, r.pool_exhausted_high, True) "
            "for r in summary.itertuples()],\n"
            "    'rounds per match': summary['rounds_per_match_mean'].round(2),\n"
            "})"
        ),
        new_markdown_cell(
            "## Which variants lengthen the game?\n\n"
            "Paired change in turns per round against `standard` (t interval on per-deal differences, "
            "Holm-adjusted p-values across variants)."
        ),
        new_code_cell(
            "turns = stats.compare_cells(games, 'turns', baseline_cell=0)\n"
            "for r in turns.dropna(subset=['diff']).itertuples():\n"
            "    verdict = ('lengthens' if r.diff > 0 else 'shortens') if r.p_holm < 0.05 else 'no clear change to'\n"
            "    print(f'{r.cell_label}: {verdict} rounds: {ci(r.diff, r.diff_low, r.diff_high)} turns, "
            "Holm p = {r.p_holm:.3g}')\n"
            "plots.plot_forest(turns, xlabel='Change in turns per round vs standard (turns)', "
            "baseline_label='standard')"
        ),
        new_code_cell("plots.plot_turns(games)"),
        new_markdown_cell(
            "## Does any variant change the first-seat advantage?\n\n"
            "The first player's win rate, against the fair share 1/players, and its paired change "
            "against `standard`."
        ),
        new_code_cell(
            "first = stats.first_seat_advantage(seats, by=('cell', 'cell_label'))\n"
            "first_change = stats.compare_cells(seats[seats['order'] == 0], 'won', baseline_cell=0)\n"
            "for r in first.itertuples():\n"
            "    print(f'{r.cell_label}: first player wins {ci(r.rate, r.low, r.high, True)} '\n"
            "          f'(fair share {r.fair_share:.0%}, advantage {ci(r.advantage, r.advantage_low, "
            "r.advantage_high, True)})')\n"
            "plots.plot_seat_win_rates(stats.seat_win_rates(seats, by=('cell', 'cell_label')))"
        ),
        new_code_cell(
            "plots.plot_forest(first_change, xlabel='Change in first-player win rate vs standard', "
            "percent=True, baseline_label='standard')"
        ),
        new_markdown_cell("## Which variants raise pool exhaustion?"),
        new_code_cell(
            "games = games.assign(pool_exhausted=(games['end_reason'] == 'pool_exhausted').astype(float))\n"
            "dry = stats.compare_cells(games, 'pool_exhausted', baseline_cell=0)\n"
            "for r in dry.dropna(subset=['diff']).itertuples():\n"
            "    verdict = ('raises' if r.diff > 0 else 'lowers') if r.p_holm < 0.05 else 'no clear change to'\n"
            "    print(f'{r.cell_label}: {verdict} pool exhaustion: {ci(r.diff, r.diff_low, r.diff_high, True)} "
            "percentage points, Holm p = {r.p_holm:.3g}')\n"
            "plots.plot_forest(dry, xlabel='Change in the share of rounds that exhaust the pool', "
            "percent=True, baseline_label='standard')"
        ),
        new_markdown_cell(
            "Matches: the profiles that play several rounds (`ramino-discard` to 200 points, "
            "`polish-40` over 4 rounds)."
        ),
        new_code_cell(
            "try:\n"
            "    fig = plots.plot_rounds_per_match(matches)\n"
            "except plots.NoData as exc:\n"
            "    fig = print(exc)\n"
            "fig"
        ),
    ]


def tune_bots() -> list:
    return [
        new_markdown_cell(
            "# Tuning the conservative bot\n\n"
            "One `conservative` bot against three `greedy` bots over a grid of its parameters "
            "(`configs/experiments/bot-tuning.yaml`; reproduce with "
            "`rummisim run configs/experiments/bot-tuning.yaml`). Every cell plays the same deals with "
            "the lineup rotated through every seat, so a fair share is 25% and cells are paired."
        ),
        new_code_cell(SETUP.format(default="../results/bot-tuning")),
        new_code_cell(CI),
        new_markdown_cell("## Win rate of the conservative bot in every cell"),
        new_code_cell(
            "bots = stats.summary_bots(data['seats'], data['games'], keys=keys)\n"
            "mine = bots[bots['bot'] == 'conservative'].sort_values('win_rate', ascending=False)\n"
            "swept = [k for k in keys if mine[k].nunique() > 1]\n"
            "table = mine[['cell', *swept, 'n']].assign(\n"
            "    win_rate=[ci(r.win_rate, r.win_low, r.win_high, True) for r in mine.itertuples()],\n"
            "    mean_score=[ci(r.score_mean, r.score_mean_low, r.score_mean_high) for r in mine.itertuples()])\n"
            "table"
        ),
        new_code_cell("plots.plot_sweep(bots, keys, bot='conservative')"),
        new_markdown_cell(
            "## The best parameters, and how sure we are\n\n"
            "The best cell by win rate is compared, pair by pair on the same deals, with every other "
            "cell (Holm-adjusted for the number of comparisons) and with the fair share. A cell whose "
            "interval overlaps the best one's and whose adjusted p is large cannot be ruled out. The best "
            "cell is picked from the same data, so its lead is optimistic (the winner's curse): confirm a "
            "choice with a fresh run (`--seed`) before relying on it."
        ),
        new_code_cell(
            "best = mine.iloc[0]\n"
            "conservative = seats[seats['bot'] == 'conservative']\n"
            "versus = stats.compare_cells(conservative, 'won', baseline_cell=int(best['cell']))\n"
            "versus = versus.merge(mine[['cell', *swept]], on='cell')\n"
            "ties = versus[versus['p_holm'] >= 0.05]\n"
            "settings = ', '.join(f'{k} = {best[k]}' for k in swept)\n"
            "print(f'best: {settings}: wins {ci(best.win_rate, best.win_low, best.win_high, True)} '\n"
            "      f'against a fair share of {best.fair_share:.0%}')\n"
            "beats_fair = best.win_low > best.fair_share\n"
            "print('it beats three greedy bots' if beats_fair else 'its lead over the fair share is not "
            "significant')\n"
            "print(f'{len(ties)} of {len(versus)} other settings cannot be told apart from it at the 5% level '\n"
            "      '(Holm-adjusted paired comparisons)')\n"
            "versus[['cell', *swept, 'n_pairs', 'diff', 'diff_low', 'diff_high', 'p_value', 'p_holm']].round(3)"
        ),
        new_code_cell(
            "plots.plot_forest(versus.assign(cell_label=[', '.join(f'{k.split(\".\")[-1]}={r[k]}' for k in swept) "
            "for _, r in versus.iterrows()]), xlabel='Win rate change vs the best setting', percent=True, "
            "baseline_label='the best setting')"
        ),
    ]


def first_player_advantage() -> list:
    return [
        new_markdown_cell(
            "# How much is the first seat worth?\n\n"
            "The seat effect under each rule profile, from the `variants` run (four `greedy` bots, "
            "every deal replayed with the lineup rotated, so bots are balanced across seats). "
            "`order` 0 is the player who moved first in the round; the fair share is 1/players."
        ),
        new_code_cell(SETUP.format(default="../results/variants")),
        new_code_cell(CI),
        new_code_cell(
            "by_order = stats.seat_win_rates(seats, by=('cell', 'cell_label'))\n"
            "by_order.pivot(index='cell_label', columns='order', values='rate').rename(\n"
            "    columns=lambda o: f'{o + 1}. to play').style.format('{:.1%}')"
        ),
        new_code_cell("plots.plot_seat_win_rates(by_order)"),
        new_markdown_cell(
            "## The first player's edge per profile\n\nAdvantage = first player's win rate minus the fair "
            "share, with a 95% Wilson interval. It is significant where the interval excludes zero."
        ),
        new_code_cell(
            "first = stats.first_seat_advantage(seats, by=('cell', 'cell_label'))\n"
            "for r in first.itertuples():\n"
            "    sure = 'significant' if r.advantage_low > 0 or r.advantage_high < 0 else 'not significant'\n"
            "    print(f'{r.cell_label:<22} advantage {ci(r.advantage, r.advantage_low, r.advantage_high, True)} '\n"
            "          f'pp ({sure}; {r.n} rounds)')"
        ),
        new_markdown_cell(
            "For match profiles the first player of later rounds is chosen by the profile "
            "(`polish-40` rotates it), so the first seat of a match matters less than the first move of "
            "a round. Match winners by the seat that opened the match:"
        ),
        new_code_cell(
            "first_round = data['games'].query('round == 0')[['cell', 'game', 'first_player']]\n"
            "m = data['matches'].merge(first_round, on=['cell', 'game'])\n"
            "m = m.assign(won_by_opener=(m['winner'] == m['first_player']))\n"
            "stats.rate(m, 'won_by_opener', by=('cell', 'cell_label')).round(3)"
        ),
    ]


TURNS_SETUP = """\
%matplotlib inline
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import rummisim
from rummisim.store import load_turns

pd.set_option("display.width", 160)
RESULTS = Path(os.environ.get("RUMMISIM_RESULTS", "../results/inside-a-game"))
data = rummisim.load_results(RESULTS)
turns = load_turns(RESULTS)
# the seat's own turn in the round (1 = its first), the rack's size, the tiles played
turns["own_turn"] = turns.groupby(["cell", "game", "round", "seat"]).cumcount() + 1
turns["rack_size"] = turns["rack_before"].map(len)
turns["n_played"] = turns["tiles_played"].map(len)
print(f"{RESULTS}: {data['manifest']['experiment']['name']}, {len(data['matches'])} games, "
      f"{len(data['games'])} rounds, {len(turns)} turns")
turns[["game", "turn", "seat", "bot", "phase", "rack_before", "action", "tiles_played", "value_played",
       "rack_after", "pool_after"]].head(8)"""

REPLAY = """\
from rummisim import engine
from rummisim import events as ev
from rummisim.api import lineup
from rummisim.referee import legal_play

SAMPLE = 40  # games replayed; each turn of the watched bots costs one exact search
WATCHED = ("conservative", "greedy")  # greedy plays the most tiles it can: the control


def positions(profile, bots, seed):
    \"\"\"Replay a game from its seed: (round, turn, rack before, opened before, table before) per turn.\"\"\"
    found, table, before = [], (), ()

    def listen(event):
        nonlocal table, before
        if isinstance(event, ev.Dealt):
            table = before = ()
        elif isinstance(event, ev.Played):
            table = event.table
        elif isinstance(event, ev.TurnEnded):
            found.append((event.round_index, event.turn, event.rack_before, event.opened_before, before))
            before = table

    engine.play_game(profile, lineup(bots), seed, events=listen)
    return found


profiles = {h: rummisim.load_profile(RESULTS / "profiles" / f"{h}.yaml") for h in turns["profile_hash"].unique()}
games_played = turns[["cell", "game"]].drop_duplicates()
sample = games_played.sample(n=min(SAMPLE, len(games_played)), random_state=0)
best = []
for cell, game in sample.itertuples(index=False):
    rows = turns[(turns["cell"] == cell) & (turns["game"] == game)]
    bots = rows.drop_duplicates("seat").sort_values("seat")["bot_label"].tolist()
    profile = profiles[rows["profile_hash"].iloc[0]]
    joker = profile.tileset.joker
    watched = set(rows.loc[rows["bot"].isin(WATCHED), ["round", "turn"]].itertuples(index=False, name=None))
    for rnd, turn, rack, opened, table in positions(profile, bots, int(rows["seed"].iloc[0])):
        if (rnd, turn) in watched:
            play = legal_play(profile, rack, table, opened=opened)
            best.append({"cell": cell, "game": game, "round": rnd, "turn": turn,
                         "replayed_rack": [profile.tileset.format_tile(t) for t in rack],
                         "best_tiles": play.tiles_placed, "best_uses_joker": joker in play.played})
best = pd.DataFrame(best).merge(turns, on=["cell", "game", "round", "turn"])
assert (best["replayed_rack"].map(list) == best["rack_before"].map(list)).all(), "the replay went another way"
best["held"] = best["best_tiles"] - best["n_played"]
print(f"{len(sample)} games replayed, {len(best)} turns of {' and '.join(WATCHED)} searched")"""


def inside_a_game() -> list:
    return [
        new_markdown_cell(
            "# Inside a game\n\n"
            "The per-turn table (`turns.parquet`, written by `rummisim run --turns`) of four different bots "
            "at one table under `standard`, seats rotated (`configs/experiments/inside-a-game.yaml`; reproduce "
            "with `rummisim run configs/experiments/inside-a-game.yaml`, which sets `turns: true`). One row per "
            "turn: the rack before it, whether the seat had made its initial meld (`phase`), what it did "
            "(`action`), the tiles it played and their value, and the sizes of the table, rack and pool after. "
            "`own_turn` below counts a seat's own turns in the round (1 = its first)."
        ),
        new_code_cell(TURNS_SETUP),
        new_markdown_cell("## What the bots do with a turn\n\nShare of each bot's turns by action."),
        new_code_cell("pd.crosstab(turns['bot'], turns['action'], normalize='index').round(3)"),
        new_markdown_cell(
            "## When do bots open?\n\n"
            "The initial meld is the first turn a seat plays in the `initial_meld` phase. A seat-round counts as "
            "not opened when the round ended first, so the curves below are shares of all seat-rounds."
        ),
        new_code_cell(
            "seat = ['cell', 'game', 'round', 'seat', 'bot']\n"
            "seat_rounds = turns.groupby(seat).size().rename('turns').reset_index()\n"
            "meld = turns[(turns['phase'] == 'initial_meld') & (turns['n_played'] > 0)]\n"
            "opened = seat_rounds.merge(meld[[*seat, 'own_turn', 'value_played']], on=seat, how='left')\n"
            "opened.groupby('bot').agg(\n"
            "    seat_rounds=('turns', 'size'),\n"
            "    opened=('own_turn', lambda s: s.notna().mean()),\n"
            "    on_first_turn=('own_turn', lambda s: (s == 1).mean()),\n"
            "    median_turn=('own_turn', 'median'),\n"
            "    mean_turn=('own_turn', 'mean'),\n"
            "    median_opening_value=('value_played', 'median'),\n"
            ").round(3)"
        ),
        new_code_cell(
            "fig, ax = plt.subplots(figsize=(7, 4))\n"
            "horizon = np.arange(1, 26)\n"
            "for bot, group in opened.groupby('bot'):\n"
            "    ax.step(horizon, [(group['own_turn'] <= k).mean() for k in horizon], where='post', label=bot)\n"
            "ax.set(xlabel=\"the seat's own turn\", ylabel='share of seat-rounds opened by then',\n"
            "       title='When each bot makes its initial meld', ylim=(0, 1))\n"
            "ax.grid(alpha=0.3)\n"
            "ax.legend();"
        ),
        new_markdown_cell(
            "## How does the rack evolve?\n\n"
            "Mean rack size at the start of each of the seat's own turns. Later turns exist only in rounds that "
            "last that long (a survivor effect), so the right of the chart is drawn from fewer, longer rounds: "
            "points with fewer than 20 seat-rounds behind them are left out, and the table gives the counts."
        ),
        new_code_cell(
            "racks = turns.groupby(['bot', 'own_turn'])['rack_size'].agg(['mean', 'size'])\n"
            "racks = racks[racks['size'] >= 20]\n"
            "fig, ax = plt.subplots(figsize=(7, 4))\n"
            "for bot, group in racks.reset_index().groupby('bot'):\n"
            "    ax.plot(group['own_turn'], group['mean'], marker='.', label=bot)\n"
            "ax.set(xlabel=\"the seat's own turn\", ylabel='mean tiles on the rack before the turn',\n"
            "       title='Rack size by turn')\n"
            "ax.grid(alpha=0.3)\n"
            "ax.legend()\n"
            "shown = [k for k in (1, 3, 5, 8, 10, 12, 15) if k in racks.index.get_level_values('own_turn')]\n"
            "racks.unstack('bot').loc[shown].round(1)"
        ),
        new_markdown_cell(
            "## When does `conservative` hold back?\n\n"
            "`conservative` keeps its jokers on the rack and may wait for bigger plays. The table records what a "
            "seat played, not what it could have played: that needs the table layout before the turn, which "
            "`turns.parquet` does not hold (only its size). So we replay a **sample** of games from their seeds "
            "(every game replays exactly: the seed, the profile in `profiles/` and the bots by seat are in the "
            "table; the replay is checked against the recorded racks), rebuild the table before each turn, and ask "
            "the referee's exact search (`rummisim.referee.legal_play`: the most tiles the rules allow) at every "
            "turn of `conservative` and, as a control, of `greedy`, which always plays the most tiles it can. That "
            "is one exact search per turn, which is why it runs on a sample, not on every game. A turn *held back* "
            "when the best play placed more tiles than the bot did."
        ),
        new_code_cell(REPLAY),
        new_code_cell(
            "best['held_all'] = (best['n_played'] == 0) & (best['best_tiles'] > 0)\n"
            "best['held_some'] = (best['n_played'] > 0) & (best['held'] > 0)\n"
            "best.groupby(['bot', 'phase']).agg(\n"
            "    turns=('held', 'size'),\n"
            "    could_play=('best_tiles', lambda s: (s > 0).mean()),\n"
            "    held_back=('held', lambda s: (s > 0).mean()),\n"
            "    drew_instead=('held_all', 'mean'),\n"
            "    played_less=('held_some', 'mean'),\n"
            "    tiles_held_when_held=('held', lambda s: s[s > 0].mean()),\n"
            ").round(3)"
        ),
        new_markdown_cell(
            "Why it held back. With its default parameters (`keep_jokers: true`, `min_play: 1`, "
            "`open_margin: 0`, `dump_at: 0`) `conservative` holds back only to keep its jokers: it plays the "
            "best play of its other tiles. The check below counts the held turns where the best play used a "
            "joker that stayed on the rack; any other held turn would be a hold this rule does not explain."
        ),
        new_code_cell(
            "held = best[(best['bot'] == 'conservative') & (best['held'] > 0)].copy()\n"
            "held['kept_a_joker'] = held['best_uses_joker'] & ~held['tiles_played'].map(lambda t: 'J' in list(t))\n"
            "print(f\"conservative held back on {len(held)} of {(best['bot'] == 'conservative').sum()} sampled turns; \"\n"
            "      f\"a joker the best play used stayed on its rack in {held['kept_a_joker'].mean():.0%} of them\")\n"
            "held[['game', 'turn', 'phase', 'rack_before', 'action', 'tiles_played', 'best_tiles', 'kept_a_joker']].head(10)"
        ),
        new_code_cell(
            "shares = best.assign(held_back=best['held'] > 0).groupby(['phase', 'bot'])['held_back'].mean().unstack('bot')\n"
            "ax = shares.plot.bar(figsize=(7, 4), rot=0)\n"
            "ax.set(ylabel='share of turns held back', xlabel='phase before the turn',\n"
            "       title=f'Turns held back, {len(sample)} replayed games')\n"
            "ax.grid(axis='y', alpha=0.3);"
        ),
    ]


NOTEBOOKS = {
    "compare_variants.ipynb": compare_variants,
    "tune_bots.ipynb": tune_bots,
    "first_player_advantage.ipynb": first_player_advantage,
    "inside_a_game.ipynb": inside_a_game,
}


def build(name: str) -> nbformat.NotebookNode:
    nb = new_notebook(cells=NOTEBOOKS[name]())
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    return nb


def execute(nb: nbformat.NotebookNode, results: Path | None = None, cwd: Path = HERE, timeout: int = 600):
    """Run a notebook in place, from ``cwd``, against a results folder (``RUMMISIM_RESULTS``;
    None: the notebook's default, the shipped run under ``results/``)."""
    old = os.environ.pop("RUMMISIM_RESULTS", None)
    if results is not None:
        os.environ["RUMMISIM_RESULTS"] = str(results)
    try:
        NotebookClient(
            nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
        ).execute()
    finally:
        if old is None:
            os.environ.pop("RUMMISIM_RESULTS", None)
        else:
            os.environ["RUMMISIM_RESULTS"] = old
    return nb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-run", action="store_true")
    parser.add_argument("names", nargs="*", help=f"only these notebooks ({', '.join(NOTEBOOKS)})")
    args = parser.parse_args()
    unknown = [n for n in args.names if n not in NOTEBOOKS]
    if unknown:
        parser.error(f"unknown notebook(s) {', '.join(unknown)}; choose from {', '.join(NOTEBOOKS)}")
    for name in args.names or NOTEBOOKS:
        nb = build(name)
        if not args.no_run:
            execute(nb)
        nbformat.write(nb, HERE / name)
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
