"""Write the three analysis notebooks and execute them against real results.

    python notebooks/make_notebooks.py            # write + execute against results/
    python notebooks/make_notebooks.py --no-run   # only write the .ipynb files

Each notebook reads the results folder named by the ``RUMMISIM_RESULTS``
environment variable (default: the shipped run in ``results/``), so the tests
can execute the same notebooks against a small run. The notebooks use only the
public API: ``rummisim.load_results``, ``rummisim.stats``, ``rummisim.plots``
and pandas.
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


NOTEBOOKS = {
    "compare_variants.ipynb": compare_variants,
    "tune_bots.ipynb": tune_bots,
    "first_player_advantage.ipynb": first_player_advantage,
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
        NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    finally:
        if old is None:
            os.environ.pop("RUMMISIM_RESULTS", None)
        else:
            os.environ["RUMMISIM_RESULTS"] = old
    return nb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-run", action="store_true")
    args = parser.parse_args()
    for name in NOTEBOOKS:
        nb = build(name)
        if not args.no_run:
            execute(nb)
        nbformat.write(nb, HERE / name)
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
