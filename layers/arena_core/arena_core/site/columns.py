"""What each leaderboard column holds, in one sentence: the tooltip of its heading (the
methodology page has the full definitions)."""

from __future__ import annotations

COLUMN_HELP = {
    "Rank": "Rank on the ranked measure; in brackets, the ranks the pairwise verdicts allow.",
    "Model": "The model family (one agent in every weekly cohort).",
    "Forecaster": "The model family, the ensemble of the models, or the market's own price.",
    "Brier": "Mean squared error of the forecasts on matured questions (0 is perfect, lower "
    "is better), with its 95% interval.",
    "Peer score (×100)": "How much better than the other forecasters on the same questions, "
    "×100 (positive is better), with its 95% interval: the ranked measure.",
    "Calib. error": "Count-weighted mean distance between forecast and observed frequency "
    "over the reliability bins (0 is calibrated).",
    "First": "Share of draws from the intervals' distribution in which this family is first.",
    "Brier, all resolved": "The Brier over every resolved question, matured or not: "
    "provisional (early YES resolutions flatter YES-leaning forecasters).",
    "Peer, all resolved": "The peer score over every resolved question, matured or not: "
    "provisional.",
    "Forecasts (weeks, events)": "Matured forecasts scored, over how many run weeks and "
    "distinct events (the intervals cluster on them).",
    "Log score": "Mean log of the probability given to what happened (0 is perfect, higher "
    "is better).",
    "Skill vs market": "Brier skill against the market's price on the same questions, "
    "1 − Brier ÷ market's Brier, and the verdict of the primary comparison with the market "
    "(paired t, Holm over the ranked models): better, worse or undecided.",
    "Log score vs market (×100)": "Mean log score minus the market's on the same "
    "questions, ×100 (positive beats the market).",
    "Market's Brier": "The market's price as a forecast of the same questions, scored alike.",
    "Return %": "Mean return over matured cohorts, (total value − 10,000) ÷ 10,000 × 100, with "
    "its interval; '[live]': no matured cohort yet, every cohort at its latest marks.",
    "P/L": "Total profit and loss in dollars over every cohort, at the latest marks.",
    "Win rate": "Share of settled bets that won (reported, never ranked).",
    "Trades": "Buys and sells executed.",
    "Per forecast": "What the model's calls cost per forecast made, in dollars.",
    "Missing": "Panel questions it gave no forecast for (filled in at the market's price).",
    "Coherent buys": "Share of its buys whose side agrees with its stated forecast against "
    "the price.",
    "Size ÷ Kelly": "Median bet size as a share of what the Kelly criterion would stake at "
    "its stated forecast.",
    "Bet Brier": "The v1 Brier of its bets' implied forecasts (beside the panel's).",
}
