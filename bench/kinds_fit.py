"""Leave-one-kind-out fitting of the learned fusion over the kinds suite's explained searches.

python bench/kinds_fit.py bench/results/kinds_explained.json             # report only
python bench/kinds_fit.py bench/results/kinds_explained.json --write-model

`bench/kinds.py --explain` asks every question once with every channel on, no floor and
`explain: true`; this replays the service's learned ranking offline (as bench/recall_cv.py does
for LoCoMo) for a model fitted without the kind it is scored on. Holding out a kind also holds
out `mixed` (which holds parts of every kind but bank_zh); the `mixed` fold trains on every
other kind. Each kind weighs the same in a fit whatever its number of questions, and within a
kind positives and negatives weigh the same. The report gives, per held-out kind, the held-out
model beside the shipped model and each channel alone, all replayed on the same searches; for
`turns`, also each conversation scored by a model fitted on every other kind and the other
conversations (bench/locomo.py --cv's folds, the other kinds added). The calibration of the
score (Platt scaling of the logit, one for dialogue turns and one for other memories, each hit's
`turn` signal telling them apart) is fitted on the held-out folds' returned hits, each kind
weighing the same; a table shows per kind the share of returned hits that are gold by
calibrated score. `--write-model` ships the model fitted on every kind, with that calibration
(recall/assets/fusion_model.json); `--calibrate-shipped` refits only the shipped model's
calibrations and shows their reliability on each kind calibrated without it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import print_table, write_json  # noqa: E402
from bench.kinds_suite import METRICS, MIXED_CONVERSATION, mean_scores, score  # noqa: E402
from recall.read.context import query_terms  # noqa: E402
from recall.read.fusion import (  # noqa: E402
    FEATURES,
    LEARNED_CHANNELS,
    MODEL_PATH,
    LinearModel,
    ScriptCorrection,
    calibrated,
    feature_matrix,
    learned_logits,
    learned_scores,
    shipped_model,
)
from recall.read.slots import is_cjk  # noqa: E402

TOP_K = 10
RANK_WINDOW = max(TOP_K * 3, 30)  # recall.service RANK_WINDOW_FACTOR / MIN_RANK_WINDOW
FLOOR = 0.3  # recall.read.fusion FusionConfig.min_score
L2 = 1e-3
FIT_STEPS = 400
FIT_RATE = 0.5
MIN_GROUP = 100  # returned hits a group needs to count in a calibration fit


class Search:
    """One explained search as arrays: candidates, features, factors, refs and gold."""

    def __init__(self, raw: dict[str, Any]) -> None:
        """Lay out one saved explained search."""
        self.kind = str(raw['kind'])
        scope = str(raw['scope'])
        # the LoCoMo conversation a search belongs to ('' for the other kinds)
        self.conversation = '-'.join(scope.split('-')[-2:]) if '-conv-' in scope else ''
        self.gold = tuple(frozenset(p) for p in raw['gold'])
        # a Chinese query, as the service tells one (recall.read.ranking.Signals)
        self.cjk = is_cjk(query_terms(str(raw.get('question', ''))))
        lists = {c: [(i, float(v)) for i, v in pts] for c, pts in raw['lists'].items()}
        self.lists = lists
        factors = raw['factors']
        ids = sorted({i for pts in lists.values() for i, _ in pts} & set(factors))
        self.ids = ids
        self.features = feature_matrix(ids, lists, factors)
        self.learnable = np.zeros(len(ids), bool)
        at = {ident: n for n, ident in enumerate(ids)}
        for channel in LEARNED_CHANNELS:
            for ident, _ in lists.get(channel, []):
                if ident in at:
                    self.learnable[at[ident]] = True
        self.confidence = np.array([factors[i]['confidence'] for i in ids])
        # how far each candidate reaches towards the floor's "answered at all" (recall.read.ranking
        # en_reach / zh_reach; None: receipts from before the floor read it, English ones before
        # 2026-11-29)
        self.reach = (
            np.array([factors[i].get('reach', factors[i]['confidence']) for i in ids])
            if any('reach' in factors[i] for i in ids)
            else None
        )
        self.turn = np.array([factors[i].get('turn', 0.0) for i in ids])
        self.decay = np.array([factors[i]['decay_multiplier'] for i in ids])
        self.refs = [frozenset(raw['refs'].get(i, ())) for i in ids]
        wanted = frozenset().union(*self.gold)
        self.label = np.array([bool(r & wanted) for r in self.refs])


def above_floor(s: Search, order: np.ndarray, floor: float) -> np.ndarray:
    """`order` (the window) without the candidates under the relevance floor
    (recall.read.ranking `_below_floor`): every candidate when none of the window reaches the
    floor (`reach`), else those whose confidence is below it (a Chinese query: those sharing no
    content word with it)."""
    if s.reach is None or floor <= 0.0:
        return order[s.confidence[order] >= floor]
    if not (s.reach[order] >= floor).any():
        return order[:0]
    if s.cjk:
        return order[s.confidence[order] > 0]
    return order[s.confidence[order] >= floor]


def replay(s: Search, model: LinearModel, floor: float = FLOOR) -> list[frozenset[str]]:
    """The refs the service's learned ranking returns for this search (RecallService._rank)."""
    base = learned_scores(model, s.features, s.turn, s.cjk)
    return [s.refs[n] for n in final_hits(s, base, above_floor(s, window(s, base), floor))]


def window(s: Search, base: np.ndarray) -> np.ndarray:
    """The candidates the service ranks (recall.read.ranking `_Ranking.run`): the learnable ones,
    first RANK_WINDOW by learned score `base`, ties by candidate order."""
    order = np.lexsort((np.arange(len(s.ids)), -base))
    return order[s.learnable[order]][:RANK_WINDOW]


def final_hits(s: Search, base: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """The hits the service returns of the candidates `kept` (the floor's): the first TOP_K by
    learned score times decay, ties by candidate order."""
    return kept[np.lexsort((kept, -(base[kept] * s.decay[kept])))][:TOP_K]


def channel_alone(s: Search, channel: str, floor: float = FLOOR) -> list[frozenset[str]]:
    """The refs a single-channel mode returns: the channel's own order, floor applied."""
    at = {ident: n for n, ident in enumerate(s.ids)}
    out = []
    for ident, _ in s.lists.get(channel, []):
        n = at.get(ident)
        if n is not None and s.confidence[n] >= floor:
            out.append(s.refs[n])
        if len(out) == TOP_K:
            break
    return out


def fit(searches: Sequence[Search], label: str) -> LinearModel:
    """Logistic regression with L2 over the learnable candidates of `searches`: each kind
    weighs the same, and within a kind positives and negatives weigh the same."""
    kinds = sorted({s.kind for s in searches})
    xs, ys, ws = [], [], []
    for kind in kinds:
        rows = [s for s in searches if s.kind == kind]
        x = np.vstack([s.features[s.learnable] for s in rows]).astype(np.float32)
        y = np.concatenate([s.label[s.learnable] for s in rows]).astype(float)
        pos = max(1.0, y.sum())
        neg = max(1.0, len(y) - y.sum())
        xs.append(x)
        ys.append(y)
        ws.append(np.where(y > 0, 0.5 / pos, 0.5 / neg) / len(kinds))
    x, y, w = np.vstack(xs), np.concatenate(ys), np.concatenate(ws)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    # a constant column (float32 leaves it a hair above 0) is stored as scale 1, not 0
    scale[scale < 1e-6] = 1.0
    z = (x - mean) / scale
    coef, bias = np.zeros(z.shape[1]), 0.0
    for _ in range(FIT_STEPS):
        prob = 1.0 / (1.0 + np.exp(-(z @ coef + bias)))
        err = (prob - y) * w
        coef -= FIT_RATE * (z.T @ err + L2 * coef)
        bias -= FIT_RATE * err.sum()
    return LinearModel(
        features=list(FEATURES),
        mean=[round(float(v), 6) for v in mean],
        scale=[round(float(v), 6) for v in scale],
        weights=[round(float(v), 6) for v in coef],
        bias=round(float(bias), 6),
        fitted_on=label,
    )


CORRECTION_L2 = 1e-2  # a correction learns from a few hundred questions: a firm pull towards none
CORRECTION_STEPS = 600


def fit_correction(rows: Sequence[tuple[str, np.ndarray, np.ndarray, np.ndarray]],
                   base: LinearModel, cjk: bool, label: str) -> ScriptCorrection:  # fmt: skip
    """A correction of `base` (recall.read.fusion.ScriptCorrection): logistic regression on
    `rows` (kind, features, gold labels, turn flags), with `base`'s logit for such a query held
    fixed as an offset, over `base`'s standardised features; each kind weighs the same, and
    within a kind positives and negatives weigh the same."""
    plain = base.model_copy(update={'cjk': None, 'prose': None})
    kinds = sorted({kind for kind, *_ in rows})
    mean, scale = np.asarray(plain.mean), np.asarray(plain.scale)
    zs, offsets, ys, ws = [], [], [], []
    for kind in kinds:
        x = np.vstack([f for k, f, _, _ in rows if k == kind])
        y = np.concatenate([g for k, _, g, _ in rows if k == kind]).astype(float)
        turns = np.concatenate([t for k, _, _, t in rows if k == kind])
        pos, neg = max(1.0, y.sum()), max(1.0, len(y) - y.sum())
        zs.append((x - mean) / scale)
        offsets.append(learned_logits(plain, x, cjk, turns))
        ys.append(y)
        ws.append(np.where(y > 0, 0.5 / pos, 0.5 / neg) / len(kinds))
    z, offset = np.vstack(zs), np.concatenate(offsets)
    y, w = np.concatenate(ys), np.concatenate(ws)
    coef, bias = np.zeros(z.shape[1]), 0.0
    for _ in range(CORRECTION_STEPS):
        prob = 1.0 / (1.0 + np.exp(-(offset + z @ coef + bias)))
        err = (prob - y) * w
        coef -= FIT_RATE * (z.T @ err + CORRECTION_L2 * coef)
        bias -= FIT_RATE * err.sum()
    return ScriptCorrection(
        weights=[round(float(v), 6) for v in coef], bias=round(float(bias), 6), fitted_on=label
    )


def fit_cjk(searches: Sequence[Search], base: LinearModel, label: str) -> ScriptCorrection:
    """The Chinese correction of `base`: fitted on the Chinese searches' learnable candidates."""
    rows = [
        (s.kind, s.features[s.learnable], s.label[s.learnable], s.turn[s.learnable])
        for s in searches
        if s.cjk
    ]
    return fit_correction(rows, base, True, label)


def fit_prose(searches: Sequence[Search], base: LinearModel, label: str) -> ScriptCorrection:
    """The prose correction of `base`: fitted on the learnable candidates that are not dialogue
    turns, of the queries not in Chinese."""
    rows = []
    for s in searches:
        keep = s.learnable & (s.turn <= 0)
        if not s.cjk and keep.any():
            rows.append((s.kind, s.features[keep], s.label[keep], s.turn[keep]))
    return fit_correction(rows, base, False, label)


def cjk_training(searches: Sequence[Search], held: str) -> list[Search]:
    """The Chinese searches a correction scored on `held` may learn from: not `held`, not
    `mixed`, and for `mixed` not `zh` either (mixed asks zh's questions again)."""
    left_out = {held, 'mixed'} | ({'zh'} if held == 'mixed' else set())
    return [s for s in searches if s.cjk and s.kind not in left_out]


def prose_training(searches: Sequence[Search], held: str) -> list[Search]:
    """The English searches a prose correction scored on `held` may learn from: not `held`,
    not `mixed`, and for `mixed` neither bank_en nor MIXED_CONVERSATION (mixed asks their
    questions again)."""
    left_out = {held, 'mixed'} | ({'bank_en'} if held == 'mixed' else set())
    return [
        s
        for s in searches
        if not s.cjk
        and s.kind not in left_out
        and not (held == 'mixed' and s.conversation == MIXED_CONVERSATION)
    ]


def evaluate(searches: Sequence[Search], rank: Any) -> dict[str, float]:
    """Mean scores of `rank(search)` over `searches`."""
    return mean_scores([score(rank(s), s.gold) for s in searches])


def returned(s: Search, model: LinearModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Logits, gold labels and turn flags of the hits the learned ranking returns."""
    base = learned_scores(model, s.features, s.turn, s.cjk)
    final = final_hits(s, base, above_floor(s, window(s, base), FLOOR))
    logits = learned_logits(model, s.features[final], s.cjk, s.turn[final])
    return logits, s.label[final], s.turn[final]


def platt(logits: Sequence[np.ndarray], labels: Sequence[np.ndarray]) -> tuple[float, float]:
    """Slope and intercept mapping a logit onto the chance that a returned hit is gold; each
    group (a kind's held-out hits) weighs the same."""
    # a group of a few hits (a handful of turn-like notes in a kind) would weigh as much as a
    # kind of thousands, and a few labels can be separated outright (the fit then diverges)
    pairs = [(x, y) for x, y in zip(logits, labels, strict=True) if len(x)]
    kept = [(x, y) for x, y in pairs if len(x) >= MIN_GROUP] or pairs
    x = np.concatenate([g for g, _ in kept])
    y = np.concatenate([g for _, g in kept]).astype(float)
    w = np.concatenate([np.full(len(g), 1.0 / len(g) / len(kept)) for g, _ in kept])
    # Newton's method, each step halved until the loss falls (a full step can overshoot)
    design = np.column_stack([x, np.ones(len(x))])

    def loss(t: np.ndarray) -> float:
        margin = design @ t
        return float((w * (np.logaddexp(0.0, margin) - y * margin)).sum())

    theta = np.array([1.0, 0.0])
    for _ in range(100):
        prob = 1.0 / (1.0 + np.exp(-np.clip(design @ theta, -50.0, 50.0)))
        gradient = design.T @ ((prob - y) * w)
        hessian = (design * (w * prob * (1.0 - prob))[:, None]).T @ design + 1e-9 * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        before = loss(theta)
        while loss(theta - step) > before and np.abs(step).max() > 1e-12:
            step = step / 2.0
        theta = theta - step
        if np.abs(step).max() < 1e-9:
            break
    slope, intercept = float(theta[0]), float(theta[1])
    return round(max(slope, 1e-3), 6), round(intercept, 6)


Hits = tuple[np.ndarray, np.ndarray, np.ndarray]  # logits, gold labels, turn flags


def platt_by_type(groups: Sequence[Hits]) -> tuple[tuple[float, float], tuple[float, float]]:
    """Platt scaling of other memories' hits and of dialogue turns' hits, each group weighing
    the same within each (linear.calibration, linear.turn_calibration)."""
    other = platt([lg[t == 0] for lg, _, t in groups], [lb[t == 0] for _, lb, t in groups])
    turns = platt([lg[t > 0] for lg, _, t in groups], [lb[t > 0] for _, lb, t in groups])
    return other, turns


def hits_of(searches: Sequence[Search], model: LinearModel) -> Hits:
    """The returned hits of every search, concatenated."""
    parts = [returned(s, model) for s in searches]
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )


BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def bins_of(p: np.ndarray, labels: np.ndarray) -> list[Any]:
    """Per score bin the share of hits that are gold (and how many), then the expected
    calibration error (mean |share - score| over the hits)."""
    cells: list[Any] = []
    error = 0.0
    for low, high in zip(BINS, BINS[1:], strict=False):
        inside = (p >= low) & (p < high if high < 1.0 else p <= high)
        n = int(inside.sum())
        cells.append(f'{labels[inside].mean():.2f} ({n})' if n else '-')
        if n:
            error += n * abs(float(labels[inside].mean()) - float(p[inside].mean()))
    return [*cells, round(error / max(1, len(p)), 3)]


def reliability(by_kind: dict[str, Hits], model: LinearModel) -> list[list[Any]]:
    """Per kind: `bins_of` the hits' calibrated scores."""
    return [
        [kind, *bins_of(calibrated(model, logits, turns), labels)]
        for kind, (logits, labels, turns) in by_kind.items()
    ]


def training_set(searches: Sequence[Search], held: str) -> list[Search]:
    """Every search a model scored on `held` may learn from."""
    if held == 'mixed':
        return [s for s in searches if s.kind != 'mixed']
    return [s for s in searches if s.kind not in (held, 'mixed')]


def by_conversation(searches: Sequence[Search], held: str) -> dict[str, float]:
    """LoCoMo turns scored conversation by conversation, each with a model fitted on every
    other kind and the other conversations (bench/locomo.py --cv, with the other kinds too)."""
    rows = []
    for conv in sorted({s.conversation for s in searches if s.kind == held}):
        train = [s for s in searches if s.kind != 'mixed' and s.conversation != conv]
        model = fit(train, f'kinds suite without {conv}')
        rows += [
            score(replay(s, model), s.gold)
            for s in searches
            if s.kind == held and s.conversation == conv
        ]
    return mean_scores(rows)


def held_out_calibration(
    searches: Sequence[Search], model: LinearModel, kind: str
) -> tuple[np.ndarray, np.ndarray]:
    """Scores and gold labels of `kind`'s returned hits, each calibrated by a calibration fitted
    without it (training_set); LoCoMo turns conversation by conversation, fitted on the other
    kinds and the other conversations (a turn calibration needs turns to learn from)."""
    test = [s for s in searches if s.kind == kind]
    others = training_set(searches, kind)
    folds = sorted({s.conversation for s in test}) if kind == 'turns' else ['']
    scores, labels = [], []
    for conv in folds:
        train = others + [s for s in test if conv and s.conversation != conv]
        held = [s for s in test if not conv or s.conversation == conv]
        groups = [
            hits_of([s for s in train if s.kind == k], model) for k in {s.kind for s in train}
        ]
        other, turns = platt_by_type(groups)
        fold = model.model_copy(update={'calibration': other, 'turn_calibration': turns})
        logits, gold, flags = hits_of(held, fold)
        scores.append(calibrated(fold, logits, flags))
        labels.append(gold)
    return np.concatenate(scores), np.concatenate(labels)


def calibrate_shipped(searches: Sequence[Search]) -> int:
    """Fit the shipped model's calibrations on every kind's returned hits (each kind weighing
    the same), print their reliability out of fold and in, and write the model back."""
    shipped = shipped_model()
    assert shipped is not None
    model = shipped.model_copy(update={'calibration': (1.0, 0.0), 'turn_calibration': None})
    kinds = list(dict.fromkeys(s.kind for s in searches))
    # the turn calibration moves turns against other memories, and so which hits are returned:
    # fit, take the hits the calibrated model returns, fit again
    for _ in range(2):
        by_kind = {k: hits_of([s for s in searches if s.kind == k], model) for k in kinds}
        other, turns = platt_by_type(list(by_kind.values()))
        model = model.model_copy(update={'calibration': other, 'turn_calibration': turns})
    print(f'calibration (slope, intercept): other memories {other}, dialogue turns {turns}')
    labels = [f'{lo:.1f}-{hi:.1f}' for lo, hi in zip(BINS, BINS[1:], strict=False)]
    held = [[k, *bins_of(*held_out_calibration(searches, model, k))] for k in kinds]
    print('share of returned hits that are gold, by score, calibration fitted without the kind')
    print_table(['kind', *labels, 'ECE'], held)
    fitted = reliability(
        {k: hits_of([s for s in searches if s.kind == k], model) for k in kinds}, model
    )
    print('the same with the shipped calibration (fitted on every kind)')
    print_table(['kind', *labels, 'ECE'], fitted)
    write_json(
        'kinds_calibration',
        {'calibration': other, 'turn_calibration': turns, 'held_out': held, 'all': fitted},
    )
    MODEL_PATH.write_text(model.model_dump_json(indent=2) + '\n')
    print(f'wrote {MODEL_PATH.relative_to(ROOT)}')
    return 0


def corrections(
    searches: Sequence[Search],
    base: LinearModel,
    held: str | None,
    keep_cjk: bool = False,
    keep_prose: bool = False,
) -> LinearModel:
    """`base` with its Chinese and prose corrections and its calibrations fitted without the
    kind `held` (None: on every kind, `mixed` left out of the corrections as it asks the other
    kinds' questions again); `keep_cjk` / `keep_prose` keep `base`'s correction."""
    plain = base.model_copy(update={'cjk': None, 'prose': None})
    if held is None:  # mixed is held out of the corrections, its parts are not
        name, train = 'every kind but mixed', list(searches)
        chinese = [s for s in searches if s.cjk and s.kind != 'mixed']
        english = [s for s in searches if not s.cjk and s.kind != 'mixed']
    else:
        name, train = f'without {held}', training_set(searches, held)
        chinese, english = cjk_training(searches, held), prose_training(searches, held)
    model = plain.model_copy(
        update={
            'cjk': base.cjk if keep_cjk else fit_cjk(chinese, plain, f'Chinese kinds, {name}'),
            'prose': base.prose
            if keep_prose
            else fit_prose(english, plain, f'English kinds, {name}'),
        }
    )
    # the corrections move other memories against turns, and so which hits are returned: fit,
    # take the hits the calibrated model returns, fit again (as calibrate_shipped)
    kinds = sorted({s.kind for s in train})
    for _ in range(2):
        groups = [hits_of([s for s in train if s.kind == k], model) for k in kinds]
        if any((t > 0).any() for _, _, t in groups):
            other, turns = platt_by_type(groups)
            model = model.model_copy(update={'calibration': other, 'turn_calibration': turns})
        else:  # held out, the turns leave no turn to calibrate on: `base`'s stays
            other = platt([lg for lg, _, _ in groups], [lb for _, lb, _ in groups])
            model = model.model_copy(update={'calibration': other})
    return model


def write_corrections(searches: Sequence[Search], refit_cjk: bool, keep_prose: bool) -> int:
    """Fit the shipped model's prose correction (and with `refit_cjk` its Chinese one; with
    `keep_prose` only the Chinese one) and its calibrations on every kind and write them into
    the shipped model."""
    shipped = shipped_model()
    assert shipped is not None
    model = corrections(searches, shipped, None, keep_cjk=not refit_cjk, keep_prose=keep_prose)
    assert model.cjk is not None and model.prose is not None
    print_table(
        ['feature', 'Chinese correction', 'prose correction'],
        [
            [f, c, p]
            for f, c, p in zip(FEATURES, model.cjk.weights, model.prose.weights, strict=True)
        ]
        + [['bias', model.cjk.bias, model.prose.bias]],
    )
    print(f'calibration: other memories {model.calibration}, turns {model.turn_calibration}')
    MODEL_PATH.write_text(model.model_dump_json(indent=2) + '\n')
    print(f'wrote {MODEL_PATH.relative_to(ROOT)}')
    return 0


def main(argv: list[str] | None = None) -> int:
    """Cross-validate by kind, print the table, optionally ship the model fitted on all."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('explained', type=Path)
    parser.add_argument('--write-model', action='store_true')
    parser.add_argument(
        '--write-corrections',
        action='store_true',
        help="only fit the shipped model's prose correction and its calibrations on every kind "
        'and write them (the Chinese correction is kept unless --refit-cjk)',
    )
    parser.add_argument('--refit-cjk', action='store_true', help='with --write-corrections')
    parser.add_argument(
        '--keep-prose',
        action='store_true',
        help='with --write-corrections --refit-cjk: keep the shipped prose correction',
    )
    parser.add_argument(
        '--calibrate-shipped',
        action='store_true',
        help="only fit the shipped model's calibration on every kind and write it",
    )
    args = parser.parse_args(argv)
    searches = [Search(r) for r in json.loads(args.explained.read_text())]
    if args.calibrate_shipped:
        return calibrate_shipped(searches)
    if args.write_corrections:
        return write_corrections(searches, args.refit_cjk, args.keep_prose)
    kinds = list(dict.fromkeys(s.kind for s in searches))
    shipped = shipped_model()
    assert shipped is not None
    plain = shipped.model_copy(update={'cjk': None, 'prose': None})
    rows: list[list[Any]] = []
    report: dict[str, Any] = {}
    held_out: dict[str, Hits] = {}
    for held in kinds:
        test = [s for s in searches if s.kind == held]
        model = fit(training_set(searches, held), f'kinds suite without {held}')
        corrected = corrections(searches, plain, held)
        results = {
            'held-out fit': evaluate(test, lambda s, m=model: replay(s, m)),
            'shipped': evaluate(test, lambda s: replay(s, shipped)),
            'LoCoMo model': evaluate(test, lambda s: replay(s, plain)),
            '+ held-out corrections': evaluate(test, lambda s, m=corrected: replay(s, m)),
            'bm25 alone': evaluate(test, lambda s: channel_alone(s, 'bm25')),
            'dense alone': evaluate(test, lambda s: channel_alone(s, 'dense')),
        }
        if held == 'turns':
            results['held-out conversation'] = by_conversation(searches, held)
        report[held] = {'results': results, 'model': model.model_dump()}
        held_out[held] = hits_of(test, model)
        rows.append(
            [
                f'{held} ({len(test)})',
                *(
                    f'{r["recall@10"]:.3f} / {r["R@5"]:.3f} / {r["mrr"]:.3f}'
                    for r in results.values()
                ),
            ]
        )
    print(f'\nleave one kind out: recall@10 / R@5 / MRR ({", ".join(METRICS)}), floor {FLOOR}')
    header = [
        'held-out fit',
        'shipped',
        'LoCoMo model',
        '+ held-out corrections',
        'bm25 alone',
        'dense alone',
        'held-out conversation',
    ]
    print_table(['held-out kind', *header], [r + [''] * (1 + len(header) - len(r)) for r in rows])
    final = fit(searches, f'kinds suite, all {len(kinds)} kinds ({args.explained.name})')
    other, turns = platt_by_type(list(held_out.values()))
    final = final.model_copy(update={'calibration': other, 'turn_calibration': turns})
    print(f'\ncalibration fitted on held-out hits: other memories {other}, dialogue turns {turns}')
    print('share of returned hits that are gold, by calibrated score (held-out models)')
    labels = [f'{lo:.1f}-{hi:.1f}' for lo, hi in zip(BINS, BINS[1:], strict=False)]
    print_table(['kind', *labels, 'ECE'], reliability(held_out, final))
    print_table(
        ['feature', 'weight'], [[f, w] for f, w in zip(FEATURES, final.weights, strict=True)]
    )
    out = write_json(
        'kinds_fit',
        {
            'folds': report,
            'model': final.model_dump(),
            'reliability': reliability(held_out, final),
        },
    )
    print(f'wrote {out.relative_to(ROOT)}')
    if args.write_model:
        MODEL_PATH.write_text(final.model_dump_json(indent=2) + '\n')
        print(f'wrote {MODEL_PATH.relative_to(ROOT)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
